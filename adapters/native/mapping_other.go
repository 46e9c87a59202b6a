//go:build !unix

package native

import "os"

// mapFile does not map on this system: reads go through ReadAt.
func mapFile(*os.File, int64) *mapping { return nil }
