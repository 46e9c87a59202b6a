package hosts

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// increment does a read-modify-write of a counter under lock, slowly enough
// that runs without the lock would lose updates.
func increment(t *testing.T, path string) {
	unlock, err := lock(path)
	if err != nil {
		t.Error(err)
		return
	}
	defer unlock()
	data, _ := os.ReadFile(path)
	n, _ := strconv.Atoi(string(data))
	time.Sleep(time.Millisecond)
	if err := os.WriteFile(path, []byte(strconv.Itoa(n+1)), 0o600); err != nil {
		t.Error(err)
	}
}

func readCount(t *testing.T, path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(string(data))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestLockExcludesGoroutines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "counter")
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				increment(t, path)
			}
		}()
	}
	wg.Wait()
	if n := readCount(t, path); n != 100 {
		t.Fatalf("counter %d, want 100: the lock let two holders in", n)
	}
	if _, err := os.Stat(path + ".rea.lock"); !os.IsNotExist(err) {
		t.Fatalf("lock file left behind: %v", err)
	}
}

func TestHelperLockProcess(t *testing.T) {
	path := os.Getenv("REA_HOSTS_LOCK_HELPER")
	if path == "" {
		t.Skip("runs as a child of TestLockExcludesProcesses")
	}
	for i := 0; i < 25; i++ {
		increment(t, path)
	}
}

func TestLockExcludesProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "counter")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for p := 0; p < 2; p++ {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperLockProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "REA_HOSTS_LOCK_HELPER="+path)
		cmd.WaitDelay = 5 * time.Second
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	for i := 0; i < 25; i++ {
		increment(t, path)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child: %v %s", err, outs[i])
		}
	}
	if n := readCount(t, path); n != 75 {
		t.Fatalf("counter %d, want 75: the lock let two processes in", n)
	}
}
