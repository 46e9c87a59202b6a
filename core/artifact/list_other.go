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

// The walk holds no directory's descriptor here (list_linux.go): each is
// listed from the root, and listed again by the recheck.
func (b *graphBuilder) prepareHeld() {}

func (b *graphBuilder) listWalked(dir, _ *Item, sc *listScratch) ([]dirEntry, error) {
	return b.listDir(dir.fsRelDir(), sc)
}

func (b *graphBuilder) closeHeld() {}

func (b *graphBuilder) recheckSettled(*Item, *recheckScratch, func(recheckFailure)) (int, bool) {
	return 0, false
}
