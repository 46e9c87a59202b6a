//go:build linux

package pty

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/matryer/is"
)

var recordDiag = flag.Bool("record", false, "record the kernel's socket-diagnostics replies as FuzzDiagReply's seed corpus")

const diagCorpus = "testdata/fuzz/FuzzDiagReply"

// liveDiagReplies dumps the listeners of rea's namespace, with one IPv4 and
// (where the host has it) one IPv6 loopback listener of the test's own, and
// returns each datagram of the replies with its request's sequence number.
func liveDiagReplies(t testing.TB) (seqs []uint32, datagrams [][]byte, ls []protoListener) {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			continue // no IPv6 here
		}
		t.Cleanup(func() { l.Close() })
	}
	d := &diagSocket{record: func(seq uint32, b []byte) {
		seqs, datagrams = append(seqs, seq), append(datagrams, b)
	}}
	defer d.close()
	ls, err := d.listeners()
	if err != nil {
		t.Skipf("no socket diagnostics here: %v", err)
	}
	return seqs, datagrams, ls
}

// corpusEntry is one seed in the go test fuzz v1 encoding.
func corpusEntry(seq uint32, b []byte) []byte {
	return fmt.Appendf(nil, "go test fuzz v1\nuint32(%d)\n[]byte(%s)\n", seq, strconv.Quote(string(b)))
}

// TestRecordDiagReplies writes the kernel's replies as FuzzDiagReply's
// seed corpus when run with -record.
func TestRecordDiagReplies(t *testing.T) {
	if !*recordDiag {
		t.Skip("records only with -record")
	}
	is := is.New(t)
	seqs, datagrams, _ := liveDiagReplies(t)
	is.NoErr(os.MkdirAll(diagCorpus, 0o755))
	for i, b := range datagrams {
		name := filepath.Join(diagCorpus, fmt.Sprintf("recorded-%d-%d", seqs[i], i))
		is.NoErr(os.WriteFile(name, corpusEntry(seqs[i], b), 0o644))
	}
}

// readCorpus reads the recorded seeds back.
func readCorpus(t testing.TB) (seqs []uint32, datagrams [][]byte) {
	files, err := filepath.Glob(filepath.Join(diagCorpus, "recorded-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded replies in %s (go test -run TestRecordDiagReplies -record): %v", diagCorpus, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 3 {
			t.Fatalf("%s: %d lines", f, len(lines))
		}
		seq, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(lines[1], "uint32("), ")"), 10, 32)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		data, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[2], "[]byte("), ")"))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		seqs, datagrams = append(seqs, uint32(seq)), append(datagrams, []byte(data))
	}
	return seqs, datagrams
}

// The recorded replies parse: each dump ends, and the listeners they list
// are loopback ones the recording test opened, among others.
func TestRecordedDiagRepliesParse(t *testing.T) {
	is := is.New(t)
	seqs, datagrams := readCorpus(t)
	done, loopback := 0, 0
	for i, b := range datagrams {
		out, end, err := parseDiagReply(b, seqs[i], nil)
		is.NoErr(err)
		if end {
			done++
		}
		for _, l := range out {
			if l.addr.IsLoopback() {
				loopback++
			}
		}
	}
	is.Equal(done, 2) // the IPv4 dump and the IPv6 one
	is.True(loopback > 0)
}

// A live dump lists the test's own loopback listener with its port.
func TestDiagListsALoopbackListener(t *testing.T) {
	is := is.New(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	is.NoErr(err)
	defer l.Close()
	_, _, ls := liveDiagReplies(t)
	port := l.Addr().(*net.TCPAddr).Port
	found := false
	for _, pl := range ls {
		found = found || (pl.proto == "tcp" && pl.port == port && pl.addr.Equal(net.IPv4(127, 0, 0, 1)))
	}
	is.True(found)
}

// Malformed replies are errors, never panics: messages cut short, lengths
// past the datagram, short socket messages, error messages.
func TestDiagReplyMalformed(t *testing.T) {
	hdr := func(l uint32, typ uint16, seq uint32) []byte {
		b := make([]byte, nlmsgHdrLen)
		binary.NativeEndian.PutUint32(b[0:4], l)
		binary.NativeEndian.PutUint16(b[4:6], typ)
		binary.NativeEndian.PutUint32(b[8:12], seq)
		return b
	}
	errMsg := append(hdr(20, syscall.NLMSG_ERROR, 1), 0, 0, 0, 0)
	code := -int32(syscall.EPERM)
	binary.NativeEndian.PutUint32(errMsg[16:20], uint32(code))
	for name, b := range map[string][]byte{
		"short header":         {1, 2, 3},
		"length past datagram": hdr(64, sockDiagByFamily, 1),
		"length under header":  hdr(8, sockDiagByFamily, 1),
		"short socket message": append(hdr(20, sockDiagByFamily, 1), 0, 0, 0, 0),
		"error message":        errMsg,
		"bare error":           hdr(16, syscall.NLMSG_ERROR, 1),
	} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			out, done, err := parseDiagReply(b, 1, nil)
			is.True(err != nil)
			is.True(out == nil && !done)
			if name == "error message" {
				is.True(errors.Is(err, syscall.EPERM))
			}
		})
	}
}

// FuzzDiagReply feeds the reply parser arbitrary datagrams, seeded with
// the kernel's replies (recorded in testdata by TestRecordDiagReplies, and
// taken live where the diagnostics are available). It must never panic; a
// reply it accepts lists listeners with an IPv4 or IPv6 address, a port
// and a decimal inode, no more than maxDiagListeners past what it was
// given.
func FuzzDiagReply(f *testing.F) {
	if seqs, datagrams, _ := liveDiagRepliesOrNone(f); len(datagrams) > 0 {
		for i, b := range datagrams {
			f.Add(seqs[i], b)
		}
	}
	f.Fuzz(func(t *testing.T, seq uint32, b []byte) {
		out, done, err := parseDiagReply(b, seq, nil)
		if err != nil {
			if out != nil || done {
				t.Fatalf("an error (%v) with %d listeners, done %v", err, len(out), done)
			}
			return
		}
		if len(out) > maxDiagListeners {
			t.Fatalf("%d listeners", len(out))
		}
		for _, l := range out {
			if len(l.addr) != net.IPv4len && len(l.addr) != net.IPv6len {
				t.Fatalf("address of %d bytes", len(l.addr))
			}
			if l.port < 0 || l.port > 65535 {
				t.Fatalf("port %d", l.port)
			}
			if _, err := strconv.ParseUint(l.inode, 10, 32); err != nil {
				t.Fatalf("inode %q", l.inode)
			}
		}
	})
}

// liveDiagRepliesOrNone is liveDiagReplies without the skip.
func liveDiagRepliesOrNone(f *testing.F) (seqs []uint32, datagrams [][]byte, ls []protoListener) {
	d := &diagSocket{record: func(seq uint32, b []byte) {
		seqs, datagrams = append(seqs, seq), append(datagrams, b)
	}}
	defer d.close()
	ls, _ = d.listeners()
	return seqs, datagrams, ls
}
