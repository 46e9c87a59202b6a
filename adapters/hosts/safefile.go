package hosts

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// MaxFileSize bounds the configuration files rea reads; larger ones are
// reported invalid and never edited.
const MaxFileSize = 16 << 20

// FileError is a configuration file rea cannot safely read or write.
type FileError struct {
	Op     string // read, lock, backup, write, readback
	Path   string
	Reason Reason
	Err    error
}

func (e *FileError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("hosts: %s %s: %s", e.Op, e.Path, e.Reason)
	}
	return fmt.Sprintf("hosts: %s %s: %s: %v", e.Op, e.Path, e.Reason, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// config is a configuration file as read.
type config struct {
	path     string // as configured
	real     string // the file actually read and written (a followed symlink's target)
	exists   bool
	data     []byte
	mode     fs.FileMode
	readOnly bool
}

// readConfig reads path, following a symlink only when both the link and
// its target are regular files of the current user.
func readConfig(path string) (config, *FileError) {
	c := config{path: path, real: path, mode: 0o600}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if dir := filepath.Dir(path); !writableDir(dir) {
			c.readOnly = true
		}
		return c, nil
	}
	if err != nil {
		return c, &FileError{Op: "read", Path: path, Reason: ReasonUnreadable, Err: err}
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if !ownedByMe(fi) {
			return c, &FileError{Op: "read", Path: path, Reason: ReasonUnsafeSymlink, Err: errors.New("the link is not owned by the current user")}
		}
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return c, &FileError{Op: "read", Path: path, Reason: ReasonUnsafeSymlink, Err: err}
		}
		tfi, err := os.Lstat(target)
		if err != nil {
			return c, &FileError{Op: "read", Path: path, Reason: ReasonUnsafeSymlink, Err: err}
		}
		if !tfi.Mode().IsRegular() || !ownedByMe(tfi) {
			return c, &FileError{Op: "read", Path: path, Reason: ReasonUnsafeSymlink, Err: fmt.Errorf("the target %s is not a regular file owned by the current user", target)}
		}
		c.real, fi = target, tfi
	}
	if !fi.Mode().IsRegular() {
		return c, &FileError{Op: "read", Path: path, Reason: ReasonNotRegular}
	}
	if fi.Size() > MaxFileSize {
		return c, &FileError{Op: "read", Path: path, Reason: ReasonTooLarge, Err: fmt.Errorf("%d bytes, more than %d", fi.Size(), MaxFileSize)}
	}
	f, err := os.Open(c.real)
	if err != nil {
		return c, &FileError{Op: "read", Path: path, Reason: ReasonUnreadable, Err: err}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return c, &FileError{Op: "read", Path: path, Reason: ReasonUnreadable, Err: err}
	}
	if len(data) > MaxFileSize {
		return c, &FileError{Op: "read", Path: path, Reason: ReasonTooLarge}
	}
	c.exists, c.data, c.mode = true, data, fi.Mode().Perm()
	c.readOnly = fi.Mode().Perm()&0o200 == 0 || !writableDir(filepath.Dir(c.real))
	return c, nil
}

// backupPath is where a backup of data would go: <real>.rea.backup, or an
// existing backup holding the same bytes, or the first free numbered name.
// create makes it (exclusive create, fsynced).
func backupPath(real string, data []byte, create bool) (string, error) {
	for n := 0; n < 1000; n++ {
		p := real + ".rea.backup"
		if n > 0 {
			p += "." + strconv.Itoa(n)
		}
		if old, err := os.ReadFile(p); err == nil {
			if bytes.Equal(old, data) {
				return p, nil
			}
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if !create {
			return p, nil
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			n-- // someone made it meanwhile: look at it again
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := f.Write(data)
		serr := f.Sync()
		cerr := f.Close()
		if err := errors.Join(werr, serr, cerr); err != nil {
			os.Remove(p)
			return "", err
		}
		return p, nil
	}
	return "", errors.New("too many backups")
}

// backups lists the existing backups of real, oldest name first.
func backups(real string) []string {
	var out []string
	for n := 0; n < 1000; n++ {
		p := real + ".rea.backup"
		if n > 0 {
			p += "." + strconv.Itoa(n)
		}
		if _, err := os.Lstat(p); err != nil {
			break
		}
		out = append(out, p)
	}
	return out
}

// writeAtomic replaces real with data: a temporary file in the same
// directory, fsynced, given mode, renamed over real, then the directory is
// fsynced.
func writeAtomic(real string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(real)
	f, err := os.CreateTemp(dir, "."+filepath.Base(real)+".rea-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	err = errors.Join(werr, f.Chmod(mode), f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(tmp, real)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	syncDir(dir)
	return nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // not supported everywhere; the rename is done either way
		d.Close()
	}
}

// readBack reads a file just written; tests replace it to simulate a
// write that did not land.
var readBack = os.ReadFile

// commit writes data over c (already locked), backing up first and reading
// back after; on a mismatch the previous state is restored. A nil data
// removes the file.
func commit(c config, data []byte) (backup string, ferr *FileError) {
	if c.exists {
		b, err := backupPath(c.real, c.data, true)
		if err != nil {
			return "", &FileError{Op: "backup", Path: c.path, Reason: ReasonBackup, Err: err}
		}
		backup = b
	} else if data != nil {
		if err := os.MkdirAll(filepath.Dir(c.real), 0o700); err != nil {
			return "", &FileError{Op: "write", Path: c.path, Reason: ReasonWrite, Err: err}
		}
	}
	if data == nil {
		if err := os.Remove(c.real); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return backup, &FileError{Op: "write", Path: c.path, Reason: ReasonWrite, Err: err}
		}
		syncDir(filepath.Dir(c.real))
		return backup, nil
	}
	mode := c.mode
	if !c.exists {
		mode = 0o600
	}
	if err := writeAtomic(c.real, data, mode); err != nil {
		return backup, &FileError{Op: "write", Path: c.path, Reason: ReasonWrite, Err: err}
	}
	got, err := readBack(c.real)
	if err == nil && bytes.Equal(got, data) {
		return backup, nil
	}
	// Put back what was there.
	if c.exists {
		_ = writeAtomic(c.real, c.data, c.mode)
	} else {
		_ = os.Remove(c.real)
	}
	if err == nil {
		err = errors.New("the file read back differs from what was written")
	}
	return backup, &FileError{Op: "readback", Path: c.path, Reason: ReasonReadback, Err: err}
}
