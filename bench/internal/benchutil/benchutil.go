// Package benchutil holds what several benchmark programs share.
package benchutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Median is the median of d (d is not modified).
func Median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// LargestELF is the largest readable ELF file under root (/usr/bin/ls when
// there is none).
func LargestELF(root string) string {
	best, size := "/usr/bin/ls", int64(0)
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() <= size {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		magic := make([]byte, 4)
		if n, _ := f.Read(magic); n == 4 && string(magic) == "\x7fELF" {
			best, size = p, info.Size()
		}
		return nil
	})
	return best
}

// NPMPackages lists the package names directly under a node_modules
// directory, scoped ones as @scope/name, in directory order; hidden entries
// and files are left out.
func NPMPackages(nm string) ([]string, error) {
	ents, err := os.ReadDir(nm)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		if !strings.HasPrefix(name, "@") {
			out = append(out, name)
			continue
		}
		sub, _ := os.ReadDir(filepath.Join(nm, name))
		for _, s := range sub {
			if s.IsDir() {
				out = append(out, name+"/"+s.Name())
			}
		}
	}
	return out, nil
}
