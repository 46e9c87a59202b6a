//go:build !(linux && (amd64 || arm64 || riscv64))

package artifact

import (
	"errors"
	"io/fs"
)

type listScratch struct{ ents []dirEntry }

// listDir lists the directory rel under the root: its entries sorted by
// name, each with its lstat (os.Root's ReadDir takes it for every entry).
func (b *graphBuilder) listDir(rel string, sc *listScratch) ([]dirEntry, error) {
	des, err := fs.ReadDir(b.fsRoot.FS(), rel)
	if err != nil {
		return nil, err
	}
	ents := sc.ents[:0]
	for _, d := range des {
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since it was listed, as on Linux (list_linux.go)
		}
		if err != nil {
			return nil, err
		}
		ents = append(ents, dirEntry{name: []byte(d.Name()), mode: info.Mode(), size: info.Size(), mtime: info.ModTime().UnixNano()})
	}
	sc.ents = ents
	return ents, nil
}
