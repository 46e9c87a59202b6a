package asar

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"time"
)

// FS returns a read-only file system view of the archive. It implements
// fs.ReadDirFS, fs.ReadFileFS, fs.StatFS and fs.ReadLinkFS. Links are
// followed only inside the archive; ReadDir reports them as fs.ModeSymlink,
// and ReadLink returns their target relative to the link's directory.
// Files have mode 0444 (0555 when executable), directories 0555, and every
// modification time is zero. Opened files implement io.ReaderAt and io.Seeker.
func (r *Reader) FS() fs.FS { return fsys{r} }

type fsys struct{ r *Reader }

var (
	_ fs.ReadDirFS  = fsys{}
	_ fs.ReadFileFS = fsys{}
	_ fs.StatFS     = fsys{}
	_ fs.ReadLinkFS = fsys{}
)

func (f fsys) find(op, name string, follow bool) (*node, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	n := lookup(f.r.root, name, follow)
	if n == nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return n, nil
}

func (f fsys) Open(name string) (fs.File, error) {
	n, err := f.find("open", name, true)
	if err != nil {
		return nil, err
	}
	info := fileInfo{name: path.Base(name), n: n}
	switch n.typ {
	case TypeDir:
		return &dirFile{info: info, path: name}, nil
	}
	if !n.unpacked {
		return &fsFile{ReadSeeker: io.NewSectionReader(f.r.ra, n.offset, n.size), info: info}, nil
	}
	file, err := f.r.openUnpacked(n, name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Path = name
		}
		return nil, err
	}
	return &unpackedFile{File: file, info: info}, nil
}

func (f fsys) Stat(name string) (fs.FileInfo, error) {
	n, err := f.find("stat", name, true)
	if err != nil {
		return nil, err
	}
	return fileInfo{name: path.Base(name), n: n}, nil
}

func (f fsys) Lstat(name string) (fs.FileInfo, error) {
	n, err := f.find("lstat", name, false)
	if err != nil {
		return nil, err
	}
	return fileInfo{name: path.Base(name), n: n}, nil
}

func (f fsys) ReadLink(name string) (string, error) {
	n, err := f.find("readlink", name, false)
	if err != nil {
		return "", err
	}
	if n.typ != TypeLink {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	return relativeLink(n.path, n.link), nil
}

func (f fsys) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := f.find("readdir", name, true)
	if err != nil {
		return nil, err
	}
	if n.typ != TypeDir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	out := make([]fs.DirEntry, len(n.sorted))
	for i, c := range n.sorted {
		out[i] = fileInfo{name: c.name, n: c}
	}
	return out, nil
}

func (f fsys) ReadFile(name string) ([]byte, error) {
	n, err := f.find("readfile", name, true)
	if err != nil {
		return nil, err
	}
	if n.typ != TypeFile {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: errors.New("is a directory")}
	}
	if !n.unpacked {
		b := make([]byte, n.size)
		if _, err := f.r.ra.ReadAt(b, n.offset); err != nil && !(errors.Is(err, io.EOF) && n.size == 0) {
			return nil, &fs.PathError{Op: "readfile", Path: name, Err: err}
		}
		return b, nil
	}
	file, err := f.r.openUnpacked(n, name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return io.ReadAll(file)
}

// fileInfo serves as both fs.FileInfo and fs.DirEntry.
type fileInfo struct {
	name string
	n    *node
}

func (i fileInfo) Name() string { return i.name }
func (i fileInfo) Size() int64 {
	switch i.n.typ {
	case TypeFile:
		return i.n.size
	case TypeLink:
		return int64(len(i.n.link))
	}
	return 0
}
func (i fileInfo) Mode() fs.FileMode {
	switch i.n.typ {
	case TypeDir:
		return fs.ModeDir | 0o555
	case TypeLink:
		return fs.ModeSymlink | 0o777
	}
	if i.n.exec {
		return 0o555
	}
	return 0o444
}
func (i fileInfo) ModTime() time.Time         { return time.Time{} }
func (i fileInfo) IsDir() bool                { return i.n.typ == TypeDir }
func (i fileInfo) Sys() any                   { return i.n.entry() }
func (i fileInfo) Type() fs.FileMode          { return i.Mode().Type() }
func (i fileInfo) Info() (fs.FileInfo, error) { return i, nil }
func (i fileInfo) String() string             { return fs.FormatFileInfo(i) }

type fsFile struct {
	io.ReadSeeker
	info   fileInfo
	closed bool
}

func (f *fsFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *fsFile) Close() error {
	if f.closed {
		return &fs.PathError{Op: "close", Path: f.info.name, Err: fs.ErrClosed}
	}
	f.closed = true
	return nil
}
func (f *fsFile) Read(p []byte) (int, error) {
	if f.closed {
		return 0, &fs.PathError{Op: "read", Path: f.info.name, Err: fs.ErrClosed}
	}
	return f.ReadSeeker.Read(p)
}
func (f *fsFile) ReadAt(p []byte, off int64) (int, error) {
	if f.closed {
		return 0, &fs.PathError{Op: "read", Path: f.info.name, Err: fs.ErrClosed}
	}
	return f.ReadSeeker.(io.ReaderAt).ReadAt(p, off)
}

type unpackedFile struct {
	*os.File
	info fileInfo
}

func (f *unpackedFile) Stat() (fs.FileInfo, error) { return f.info, nil }

type dirFile struct {
	info   fileInfo
	path   string
	offset int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Close() error               { return nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.path, Err: errors.New("is a directory")}
}

func (d *dirFile) ReadDir(count int) ([]fs.DirEntry, error) {
	kids := d.info.n.sorted[d.offset:]
	if count > 0 && len(kids) == 0 {
		return nil, io.EOF
	}
	if count > 0 && count < len(kids) {
		kids = kids[:count]
	}
	out := make([]fs.DirEntry, len(kids))
	for i, c := range kids {
		out[i] = fileInfo{name: c.name, n: c}
	}
	d.offset += len(kids)
	return out, nil
}
