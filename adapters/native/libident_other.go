//go:build !linux && !darwin

package native

import "io/fs"

// statIdentity: without a change time to check, a library file has no
// identity the library cache trusts, so it is not used (libcache.go).
func statIdentity(fs.FileInfo) (string, bool) { return "", false }
