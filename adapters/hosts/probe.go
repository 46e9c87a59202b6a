package hosts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// VersionProbe returns an Options.Version that runs `<path> version
// --format json` (stdin empty, at most timeout, output bounded) and reads
// its "version". It runs the binary a client's configuration names, so only
// pass it when the user asked for a thorough check; only regular
// executable files are run.
func VersionProbe(ctx context.Context, timeout time.Duration) func(path string) (string, error) {
	return func(path string) (string, error) {
		fi, err := os.Stat(path)
		if err != nil {
			return "", err
		}
		if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return "", fmt.Errorf("%s is not an executable file", path)
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, path, "version", "--format", "json")
		cmd.WaitDelay = time.Second
		out := &limitedBuffer{max: 64 << 10}
		cmd.Stdout = out
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("%s version: %w", path, err)
		}
		var v struct {
			Version string `json:"version"`
		}
		if err := json.Unmarshal(out.Bytes(), &v); err != nil {
			return "", fmt.Errorf("%s version: %w", path, err)
		}
		if v.Version == "" {
			return "", errors.New(path + " version: no version reported")
		}
		return v.Version, nil
	}
}
