//go:build linux

package cli

import (
	"errors"
	"io"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// Large text output straight to a regular file. rea disassemble writes
// gigabytes of text (2.2 GB for chromium); through the page cache, the
// kernel copies every byte into fresh cache pages, and on virtual machines
// whose free memory the host reclaims, that copy cost more system time than
// the disassembly cost user time (33 s against 25 s on chromium). When
// standard output is a regular file at an aligned offset, directOutput
// writes whole blocks through a second, O_DIRECT descriptor of the same
// file, from reused aligned buffers, on a goroutine of its own so that the
// device's writes overlap the formatting; the last partial block goes
// through the original descriptor, whose offset is then moved to the end,
// as if every byte had been written through it. Anything else (a pipe, a
// terminal, an appending descriptor, a file system without O_DIRECT) is
// written as before.

// directBlock is the alignment of O_DIRECT buffers, offsets and lengths:
// the largest logical block size in common use.
const directBlock = 4096

// directBuf is the size of one write.
const directBuf = 4 << 20

// directOutput returns the writer for w and the function that finishes
// it (writing what is buffered and leaving w's offset after the last
// byte). For anything but a regular file it returns w itself.
func directOutput(w io.Writer) (io.Writer, func() error) {
	noop := func() error { return nil }
	f, ok := w.(*os.File)
	if !ok {
		return w, noop
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return w, noop
	}
	fd := int(f.Fd())
	fl, err := fcntl(fd, syscall.F_GETFL, 0)
	if err != nil || fl&syscall.O_APPEND != 0 || fl&syscall.O_ACCMODE == syscall.O_RDONLY {
		return w, noop
	}
	off, err := f.Seek(0, io.SeekCurrent)
	if err != nil || off%directBlock != 0 {
		return w, noop
	}
	dfd, err := syscall.Open("/proc/self/fd/"+strconv.Itoa(fd), syscall.O_WRONLY|syscall.O_DIRECT|syscall.O_CLOEXEC, 0)
	if err != nil {
		return w, noop
	}
	var a, b syscall.Stat_t
	if syscall.Fstat(fd, &a) != nil || syscall.Fstat(dfd, &b) != nil || a.Dev != b.Dev || a.Ino != b.Ino {
		syscall.Close(dfd)
		return w, noop
	}
	d := &directWriter{f: f, dfd: dfd, off: off, jobs: make(chan directJob, 2), done: make(chan error, 1), free: make(chan []byte, 3)}
	for range 3 {
		d.free <- alignedBuf(directBuf)
	}
	d.buf = <-d.free
	go d.run()
	return d, d.finish
}

// directWriter fills aligned buffers and hands each full one to run.
type directWriter struct {
	f    *os.File
	dfd  int // the O_DIRECT descriptor, -1 once closed
	off  int64
	buf  []byte // the buffer being filled, len 0..directBuf
	jobs chan directJob
	done chan error // run's first error, or nil, when jobs is closed
	free chan []byte
	err  error
	bad  atomic.Pointer[error] // run's first error, seen by Write
}

type directJob struct {
	b   []byte
	off int64
}

func (d *directWriter) Write(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if e := d.bad.Load(); e != nil {
		return 0, *e
	}
	n := len(p)
	for len(p) > 0 {
		k := copy(d.buf[len(d.buf):directBuf], p)
		d.buf, p = d.buf[:len(d.buf)+k], p[k:]
		if len(d.buf) == directBuf {
			d.jobs <- directJob{b: d.buf, off: d.off}
			d.off += directBuf
			d.buf = (<-d.free)[:0]
		}
	}
	return n, nil
}

// run writes the full buffers in order: through the O_DIRECT descriptor,
// or, if the file system refuses it, through the original one.
func (d *directWriter) run() {
	var err error
	direct := true
	for j := range d.jobs {
		if err == nil && direct {
			if e := pwriteAll(d.dfd, j.b, j.off); e != nil {
				direct = false // e.g. EINVAL: the file system wants other alignment
			}
		}
		if err == nil && !direct {
			if err = pwriteAll(int(d.f.Fd()), j.b, j.off); err != nil {
				d.bad.Store(&err)
			}
		}
		d.free <- j.b
	}
	d.done <- err
}

// finish writes the rest, waits for run and leaves the original
// descriptor's offset after the last byte.
func (d *directWriter) finish() error {
	if d.dfd < 0 {
		return d.err
	}
	close(d.jobs)
	err := <-d.done
	syscall.Close(d.dfd)
	d.dfd = -1
	if err == nil && len(d.buf) > 0 {
		err = pwriteAll(int(d.f.Fd()), d.buf, d.off)
		d.off += int64(len(d.buf))
	}
	if err == nil {
		_, err = d.f.Seek(d.off, io.SeekStart)
	}
	if err != nil {
		d.err = err
	} else {
		d.err = errors.New("output finished")
	}
	return err
}

func pwriteAll(fd int, b []byte, off int64) error {
	for len(b) > 0 {
		n, err := syscall.Pwrite(fd, b, off)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return io.ErrShortWrite
		}
		b, off = b[n:], off+int64(n)
	}
	return nil
}

// alignedBuf returns an empty slice of capacity n whose array starts at a
// multiple of directBlock.
func alignedBuf(n int) []byte {
	b := make([]byte, n+directBlock)
	skip := int(-uintptr(unsafe.Pointer(&b[0])) & (directBlock - 1))
	return b[skip : skip : skip+n]
}

func fcntl(fd, cmd, arg int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), uintptr(cmd), uintptr(arg))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}
