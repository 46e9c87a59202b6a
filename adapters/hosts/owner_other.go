//go:build !unix

package hosts

import "io/fs"

// Without POSIX owners every file counts as the user's own; the rename that
// replaces a file fails where the user may not write.
func ownedByMe(fs.FileInfo) bool { return true }

func writableDir(string) bool { return true }
