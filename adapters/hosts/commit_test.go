package hosts

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestCommitRestoresOnReadbackMismatch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	orig := []byte("{\"a\": 1}\n")
	if err := os.WriteFile(path, orig, 0o640); err != nil {
		t.Fatal(err)
	}
	c, ferr := readConfig(path)
	if ferr != nil {
		t.Fatal(ferr)
	}
	defer func() { readBack = os.ReadFile }()
	readBack = func(string) ([]byte, error) { return []byte("torn"), nil }
	_, ferr = commit(c, []byte("{\"a\": 2}\n"))
	if ferr == nil || ferr.Reason != ReasonReadback {
		t.Fatalf("commit: %v, want a readback failure", ferr)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(orig) {
		t.Fatalf("after a failed read-back the file holds %q (%v), want the original", got, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v after restore", fi.Mode().Perm())
	}

	// A new file that does not read back is removed again.
	fresh := filepath.Join(dir, "new.json")
	c, _ = readConfig(fresh)
	_, ferr = commit(c, []byte("{}\n"))
	if ferr == nil {
		t.Fatal("commit of a new file: no error")
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("new file left behind: %v", err)
	}
}

func TestBackupNumberedWhenAnOlderOneDiffers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path+".rea.backup", []byte("older\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := backupPath(path, []byte("current\n"), false)
	if err != nil || b != path+".rea.backup.1" {
		t.Fatalf("planned backup %q, %v", b, err)
	}
	b, err = backupPath(path, []byte("current\n"), true)
	if err != nil || b != path+".rea.backup.1" {
		t.Fatalf("backup %q, %v", b, err)
	}
	// The same bytes again reuse it; the older backup is untouched.
	if again, _ := backupPath(path, []byte("current\n"), true); again != b {
		t.Fatalf("second backup %q, want %q reused", again, b)
	}
	if old, _ := os.ReadFile(path + ".rea.backup"); string(old) != "older\n" {
		t.Fatalf("older backup changed: %q", old)
	}
}
