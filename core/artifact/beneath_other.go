//go:build !(linux && (amd64 || arm64 || riscv64 || loong64))

package artifact

import (
	"io"
	"os"
)

// openBeneath has no single-call form here: the caller opens through os.Root.
func openBeneath(dir *os.File, name string) (*os.File, bool) { return nil, false }

// openReadBeneath has none either: the caller opens through openRegular.
func openReadBeneath(dir *os.File, name string) (io.ReadCloser, bool) { return nil, false }

// openReadAt has none either (no directory's descriptor is held here).
func openReadAt(at int, name string) (io.ReadCloser, bool) { return nil, false }
