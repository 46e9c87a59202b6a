//go:build !unix

package hostile

import "os"

// allocated is the file's apparent size: this system gives no block count.
func allocated(info os.FileInfo) int64 { return info.Size() }
