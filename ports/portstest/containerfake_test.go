package portstest_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
	"rea/ports/portstest"
)

func fakeArchiveSample() portstest.ContainerSample {
	return portstest.ContainerSample{Name: "app.fake", Format: "fake-archive", Data: portstest.FakeArchive(
		portstest.FakeArchiveEntry{Path: "dir", Kind: ports.EntryDirectory},
		portstest.FakeArchiveEntry{Path: "dir/a.txt", Data: []byte("alpha")},
		portstest.FakeArchiveEntry{Path: "dir/sub/b.bin", Data: bytes.Repeat([]byte{7}, 300)},
		portstest.FakeArchiveEntry{Path: "link", Kind: ports.EntrySymlink, Link: "dir/a.txt"},
	)}
}

func TestFakeOpenerPassesRunContainer(t *testing.T) {
	portstest.RunContainer(t, portstest.FakeOpener{}, fakeArchiveSample())
}

func TestFakeOpener(t *testing.T) {
	ctx := context.Background()
	open := func(data []byte, lim ports.ContainerLimits) (ports.Container, error) {
		return portstest.FakeOpener{}.OpenContainer(ctx, ports.ContainerRequest{Name: "x", ReaderAt: bytes.NewReader(data), Size: int64(len(data)), Limits: lim})
	}
	tests := []struct {
		name    string
		entries []portstest.FakeArchiveEntry
		lim     ports.ContainerLimits
		reason  string
		limit   string
	}{
		{"dot-dot", []portstest.FakeArchiveEntry{{Path: "../x"}}, ports.ContainerLimits{}, ports.ContainerPath, ""},
		{"absolute", []portstest.FakeArchiveEntry{{Path: "/x"}}, ports.ContainerLimits{}, ports.ContainerPath, ""},
		{"duplicate", []portstest.FakeArchiveEntry{{Path: "x"}, {Path: "x"}}, ports.ContainerLimits{}, ports.ContainerPath, ""},
		{"depth", []portstest.FakeArchiveEntry{{Path: "a/b/c"}}, ports.ContainerLimits{MaxDepth: 2}, ports.ContainerLimit, "max_depth"},
		{"entries", []portstest.FakeArchiveEntry{{Path: "a"}, {Path: "b"}}, ports.ContainerLimits{MaxEntries: 1}, ports.ContainerLimit, "max_entries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := open(portstest.FakeArchive(tt.entries...), tt.lim)
			var ce *ports.ContainerError
			is.True(errors.As(err, &ce))
			is.Equal(ce.Reason, tt.reason)
			is.Equal(ce.Limit, tt.limit)
		})
	}
	is := is.New(t)
	c, err := open(fakeArchiveSample().Data, ports.ContainerLimits{})
	is.NoErr(err)
	is.Equal(len(c.Entries()), 4)
	is.NoErr(c.Close())
	_, err = c.Open(ctx, "dir/a.txt")
	is.True(err != nil && strings.Contains(err.Error(), "closed")) // reading after Close fails
}

func FuzzFakeOpener(f *testing.F) {
	f.Add(fakeArchiveSample().Data)
	f.Add([]byte("REAFAKEA\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := portstest.FakeOpener{}.OpenContainer(context.Background(), ports.ContainerRequest{ReaderAt: bytes.NewReader(data), Size: int64(len(data))})
		if err != nil {
			var ce *ports.ContainerError
			if !errors.As(err, &ce) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		for _, e := range c.Entries() {
			if rc, err := c.Open(context.Background(), e.Path); err == nil {
				rc.Close()
			}
		}
	})
}
