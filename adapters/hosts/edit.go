package hosts

import (
	"bytes"
	"os"
)

// set writes rea's entry into data: the whole entry when there is none,
// else each field rea owns (other fields of the entry are kept). The
// result is parsed again and compared with the intended document.
func (l *location) set(data []byte, fs fields, f found) ([]byte, error) {
	if l.format == formatTOML {
		return tomlSet(data, l.entryPath(), fs)
	}
	jsonc := l.format == formatJSONC
	before, err := jsonDecodeDoc(data, jsonc)
	if err != nil {
		return nil, err
	}
	out := data
	if !f.present {
		if out, err = jsonSet(out, jsonc, l.entryPath(), fs); err != nil {
			return nil, err
		}
		before = jsonExpectSet(before, l.entryPath(), fs)
	} else {
		for _, fd := range fs {
			p := append(l.entryPath(), fd.key)
			if out, err = jsonSet(out, jsonc, p, fd.val); err != nil {
				return nil, err
			}
			before = jsonExpectSet(before, p, fd.val)
		}
	}
	if err := jsonVerify(out, jsonc, before); err != nil {
		return nil, err
	}
	return out, nil
}

// remove deletes rea's entry from data.
func (l *location) remove(data []byte) ([]byte, error) {
	if l.format == formatTOML {
		return tomlRemove(data, l.entryPath())
	}
	jsonc := l.format == formatJSONC
	before, err := jsonDecodeDoc(data, jsonc)
	if err != nil {
		return nil, err
	}
	out, err := jsonRemove(data, jsonc, l.entryPath())
	if err != nil {
		return nil, err
	}
	if err := jsonVerify(out, jsonc, jsonExpectRemove(before, l.entryPath())); err != nil {
		return nil, err
	}
	return out, nil
}

// restoreExact finds the bytes the file had before rea added its entry: a
// backup without an entry from which rea's edit gives exactly current, or
// no file at all when current is exactly what rea creates (backups are
// tried first). ok is false when
// the file has been changed since (then the entry is removed in place).
func (l *location) restoreExact(c config, cmd string, args []string) (data []byte, deleteFile, ok bool) {
	fs := l.desired(Entry{Command: cmd, Args: args})
	for _, b := range backups(c.real) {
		old, err := os.ReadFile(b)
		if err != nil || len(old) > MaxFileSize {
			continue
		}
		f, err := l.lookup(old)
		if err != nil || f.present {
			continue
		}
		if again, err := l.set(old, fs, f); err == nil && bytes.Equal(again, c.data) {
			return old, false, true
		}
	}
	if created, err := l.set(nil, fs, found{}); err == nil && bytes.Equal(created, c.data) {
		return nil, true, true
	}
	return nil, false, false
}
