package supervisor

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"rea/ports"
)

// Cleanup stops the run's processes (as Stop), closes the pipes it created,
// removes its sockets and temporary roots, and reports what remains: nil, or
// a *ports.CleanupError (errors.Is ports.ErrCleanupIncomplete) listing only
// owned resources. It may be called again to retry; use a context from
// CleanupContext when the run's own context has ended.
func (r *Run) Cleanup(ctx context.Context) error {
	var left []ports.OwnedResource
	if err := r.Stop(ctx); err != nil {
		var ce *ports.CleanupError
		if errors.As(err, &ce) {
			left = append(left, ce.Resources...)
		}
	}
	r.mu.Lock()
	r.cleaned = true
	started := r.started
	files := []*os.File{r.stdin, r.stdout, r.stderr}
	roots := append([]ownedRoot(nil), r.roots...)
	sockets := append([]string(nil), r.sockets...)
	r.mu.Unlock()
	r.doneOnce.Do(func() { close(r.done) })
	if started && len(left) == 0 {
		// The launcher is dead: the waiter reaps it at once. Wait for that
		// (bounded, whatever ctx says) so that nothing of ours, not even a
		// zombie, is left when Cleanup reports success.
		t := time.NewTimer(r.opts.WaitDelay)
		select {
		case <-r.exited:
		case <-t.C:
		}
		t.Stop()
	}
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
	r.lookMu.Lock()
	r.closeExitFDs() // the looks' pidfds; a look after Cleanup opens none
	r.lookMu.Unlock()

	var keptSockets []string
	for _, s := range sockets {
		if err := removeSocket(s); err != nil {
			keptSockets = append(keptSockets, s)
			left = append(left, ports.OwnedResource{Kind: ports.ResourceSocket, ID: s, Reason: err.Error()})
		}
	}
	var keptRoots []ownedRoot
	for _, root := range roots {
		if err := removeRoot(root); err != nil {
			keptRoots = append(keptRoots, root)
			left = append(left, ports.OwnedResource{Kind: ports.ResourceTemporaryRoot, ID: root.path, Reason: err.Error()})
		}
	}
	r.mu.Lock()
	r.sockets, r.roots = keptSockets, keptRoots
	r.mu.Unlock()
	if len(left) == 0 {
		return nil
	}
	return &ports.CleanupError{Resources: left}
}

// removeSocket removes path if it is still a socket; anything else there is
// not ours.
func removeSocket(path string) error {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if info.Mode().Type() != fs.ModeSocket {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// removeRoot removes a temporary root if the path still holds the directory
// the run created. A child may have left directories without write
// permission, so a failed removal makes them writable and tries again.
func removeRoot(root ownedRoot) error {
	info, err := os.Lstat(root.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !os.SameFile(info, root.info) {
		return errors.New("the path no longer holds the directory the run created; left in place")
	}
	if os.RemoveAll(root.path) == nil {
		return nil
	}
	filepath.WalkDir(root.path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	if err := os.RemoveAll(root.path); err != nil {
		return err
	}
	if _, err := os.Lstat(root.path); !errors.Is(err, fs.ErrNotExist) {
		return errors.New("still present after removal")
	}
	return nil
}
