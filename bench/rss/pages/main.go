//go:build linux

// Command pages attributes the resident pages of a running rea executable
// to the ELF sections they belong to and, inside .text, .rodata and the
// data sections, to Go packages. It answers "which of the executable's
// pages does this process keep in memory", the file-backed part of RSS.
//
// It starts the command, samples /proc/PID/status every -interval and, each
// time RssAnon+RssFile reaches a new peak, reads /proc/PID/maps and the
// present bits of /proc/PID/pagemap for every mapping of the executable
// (reading pagemap needs root or CAP_SYS_ADMIN only for frame numbers; the
// present and file bits are readable by the process's owner). The last peak
// snapshot is attributed with the executable's own section headers and
// symbol table (the addresses and sizes `go tool nm -size -sort address`
// prints). With -serve it runs `BIN serve`, sends initialize over stdin,
// waits -idle and takes one snapshot of the idle server.
//
//	go run ./bench/rss/pages [-top 25] BIN analyze-javascript-application DIR
//	go run ./bench/rss/pages -serve BIN
//
// A page counts as resident "file" when it is present and still the file's
// page, "anon" when present and copied on write (written .data, .noptrdata).
// The kernel maps file pages around each fault (fault_around_bytes, 64 KB by
// default), so a resident page was not necessarily touched; every byte of a
// resident page is charged to the symbol that covers it, the uncovered
// bytes to "(between symbols)".
package main

import (
	"bufio"
	"cmp"
	"debug/elf"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

const pageSize = 4096

func main() {
	serve := flag.Bool("serve", false, "run BIN serve, send initialize and measure the idle server")
	idle := flag.Duration("idle", time.Second, "with -serve: wait this long after the initialize response")
	interval := flag.Duration("interval", 5*time.Millisecond, "sampling interval")
	top := flag.Int("top", 20, "packages to list per section")
	dump := flag.String("dump", "", "also write the virtual address of every resident page of the executable to this file, one hex number a line")
	pageout := flag.Duration("pageout", 0, "page the executable's resident pages out this long after the start (process_madvise MADV_PAGEOUT, root), so the peak shows only what the process touches afterwards; 0: never")
	flag.Parse()
	args := flag.Args()
	if len(args) < 1 || (!*serve && len(args) < 2) {
		fmt.Fprintln(os.Stderr, "usage: pages [-serve] [-top N] BIN [ARGS...]")
		os.Exit(2)
	}
	bin, err := filepath.Abs(args[0])
	if err == nil {
		var s *snapshot
		if *serve {
			s, err = measureServe(bin, *idle)
		} else {
			s, err = measurePeak(bin, args[1:], *interval, *pageout)
		}
		if err == nil {
			err = report(os.Stdout, bin, s, *top, *dump)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pages:", err)
		os.Exit(1)
	}
}

// mapping is one line of /proc/PID/maps backed by the executable, with the
// state of each of its pages: 0 absent, 1 the file's page, 2 a private copy.
type mapping struct {
	start, end, offset uint64
	perm               string
	state              []byte
}

type snapshot struct {
	rssAnon, rssFile int // kB, from /proc/PID/status
	at               time.Duration
	exe              []mapping
	others           map[string]int // kB of Rss per other file mapping, from smaps
}

func measurePeak(bin string, args []string, interval, pageout time.Duration) (*snapshot, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var best *snapshot
	peak := 0
	t := time.NewTicker(interval)
	defer t.Stop()
	var out <-chan time.Time
	if pageout > 0 {
		out = time.After(pageout)
	}
	for {
		select {
		case <-out:
			if err := pageOut(cmd.Process.Pid, bin); err != nil {
				cmd.Process.Kill()
				<-done
				return nil, err
			}
			best, peak = nil, 0 // the peak that counts comes after
			fmt.Fprintf(os.Stderr, "pages: paged out the executable at %v\n", time.Since(start).Round(time.Millisecond))
		case err := <-done:
			if best == nil {
				return nil, fmt.Errorf("no sample taken (exit: %v)", err)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "pages: command exited: %v\n", err)
			}
			return best, nil
		case <-t.C:
			anon, file, err := status(cmd.Process.Pid)
			if err != nil || anon+file <= peak {
				continue
			}
			s, err := take(cmd.Process.Pid, bin)
			if err != nil {
				continue // the process exited between the two reads
			}
			// The split of the snapshot itself, read after the pagemap.
			if a, f, err := status(cmd.Process.Pid); err == nil {
				anon, file = a, f
			}
			s.rssAnon, s.rssFile, s.at = anon, file, time.Since(start)
			peak, best = anon+file, s
		}
	}
}

func measureServe(bin string, idle time.Duration) (*snapshot, error) {
	cmd := exec.Command(bin, "serve")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() { in.Close(); cmd.Wait() }()
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pages","version":"1"}}}`+"\n")
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		return nil, fmt.Errorf("no initialize response: %v", err)
	}
	time.Sleep(idle)
	s, err := take(cmd.Process.Pid, bin)
	if err != nil {
		return nil, err
	}
	s.rssAnon, s.rssFile, err = status(cmd.Process.Pid)
	s.at = time.Since(start)
	return s, err
}

func status(pid int) (anon, file int, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "RssAnon:":
			anon, _ = strconv.Atoi(f[1])
		case "RssFile:":
			file, _ = strconv.Atoi(f[1])
		}
	}
	return anon, file, nil
}

// take reads the executable's mappings and their pages' present bits, and
// the Rss of every other file mapping.
func take(pid int, bin string) (*snapshot, error) {
	smaps, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return nil, err
	}
	pm, err := os.Open(fmt.Sprintf("/proc/%d/pagemap", pid))
	if err != nil {
		return nil, err
	}
	defer pm.Close()
	s := &snapshot{others: map[string]int{}}
	var cur string
	for line := range strings.Lines(string(smaps)) {
		f := strings.Fields(line)
		if len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			cur = ""
			if len(f) >= 6 {
				cur = f[5]
			}
			if cur != bin {
				continue
			}
			lo, hi, _ := strings.Cut(f[0], "-")
			start, _ := strconv.ParseUint(lo, 16, 64)
			end, _ := strconv.ParseUint(hi, 16, 64)
			off, _ := strconv.ParseUint(f[2], 16, 64)
			m := mapping{start: start, end: end, offset: off, perm: f[1]}
			n := (end - start) / pageSize
			raw := make([]byte, n*8)
			if _, err := pm.ReadAt(raw, int64(start/pageSize*8)); err != nil {
				return nil, err
			}
			m.state = make([]byte, n)
			for i := range m.state {
				e := binary.LittleEndian.Uint64(raw[i*8:])
				switch {
				case e&(1<<63) == 0:
				case e&(1<<61) != 0:
					m.state[i] = 1
				default:
					m.state[i] = 2
				}
			}
			s.exe = append(s.exe, m)
			continue
		}
		if len(f) == 3 && f[0] == "Rss:" && cur != "" && cur != bin && strings.HasPrefix(cur, "/") {
			kb, _ := strconv.Atoi(f[1])
			s.others[cur] += kb
		}
	}
	if len(s.exe) == 0 {
		return nil, fmt.Errorf("no mapping of %s in process %d", bin, pid)
	}
	return s, nil
}

// tally counts the resident bytes of one range, split file/anon.
type tally struct{ size, file, anon uint64 }

func (t *tally) add(o tally) { t.size += o.size; t.file += o.file; t.anon += o.anon }

func report(w io.Writer, bin string, s *snapshot, top int, dump string) error {
	f, err := elf.Open(bin)
	if err != nil {
		return err
	}
	defer f.Close()
	// Page state by virtual address.
	pages := map[uint64]byte{}
	for _, m := range s.exe {
		for i, st := range m.state {
			off := m.offset + uint64(i)*pageSize
			for _, p := range f.Progs {
				if p.Type == elf.PT_LOAD && off >= p.Off&^(pageSize-1) && off < p.Off+p.Filesz {
					v := p.Vaddr - (p.Off - off)
					pages[v&^(pageSize-1)] = max(pages[v&^(pageSize-1)], st)
					break
				}
			}
		}
	}
	if dump != "" {
		var b strings.Builder
		for _, v := range slices.Sorted(maps.Keys(pages)) {
			if pages[v] != 0 {
				fmt.Fprintf(&b, "%x\n", v)
			}
		}
		if err := os.WriteFile(dump, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	// count returns the resident bytes of [lo, hi).
	count := func(lo, hi uint64) tally {
		t := tally{size: hi - lo}
		for a := lo; a < hi; {
			pg := a &^ (pageSize - 1)
			end := min(hi, pg+pageSize)
			switch pages[pg] {
			case 1:
				t.file += end - a
			case 2:
				t.anon += end - a
			}
			a = end
		}
		return t
	}
	fmt.Fprintf(w, "%s: RssFile %d kB, RssAnon %d kB at %v\n\n", bin, s.rssFile, s.rssAnon, s.at.Round(time.Millisecond))
	fmt.Fprintf(w, "%-16s %10s %10s %10s %6s\n", "section", "size kB", "file kB", "anon kB", "res%")
	var total tally
	for _, sec := range f.Sections {
		if sec.Flags&elf.SHF_ALLOC == 0 || sec.Type == elf.SHT_NOBITS || sec.Size == 0 {
			continue
		}
		t := count(sec.Addr, sec.Addr+sec.Size)
		total.add(t)
		if t.file+t.anon == 0 && sec.Size < 64<<10 {
			continue
		}
		fmt.Fprintf(w, "%-16s %10.0f %10.0f %10.0f %5.0f%%\n", sec.Name, kb(t.size), kb(t.file), kb(t.anon), pct(t.file+t.anon, t.size))
	}
	fmt.Fprintf(w, "%-16s %10.0f %10.0f %10.0f %5.0f%%\n", "(all sections)", kb(total.size), kb(total.file), kb(total.anon), pct(total.file+total.anon, total.size))
	// The linker names no symbol for each type, string or function's
	// tables: split .rodata and .gopclntab into their parts instead.
	fmt.Fprintf(w, "\n%-34s %10s %10s %6s\n", "region", "size kB", "res kB", "res%")
	for _, r := range regions(f) {
		t := count(r.lo, r.hi)
		fmt.Fprintf(w, "%-34s %10.0f %10.0f %5.0f%%\n", r.name, kb(t.size), kb(t.file+t.anon), pct(t.file+t.anon, t.size))
	}
	var others []string
	for p := range s.others {
		others = append(others, p)
	}
	slices.SortFunc(others, func(a, b string) int { return cmp.Or(cmp.Compare(s.others[b], s.others[a]), strings.Compare(a, b)) })
	for _, p := range others {
		if s.others[p] > 0 {
			fmt.Fprintf(w, "other file mapping %s: %d kB\n", p, s.others[p])
		}
	}

	syms, err := f.Symbols()
	if err != nil {
		return err
	}
	for _, name := range []string{".text", ".rodata", ".noptrdata", ".data"} {
		sec := f.Section(name)
		if sec == nil {
			continue
		}
		byPkg := map[string]*tally{}
		addTo := func(pkg string, t tally) {
			if byPkg[pkg] == nil {
				byPkg[pkg] = &tally{}
			}
			byPkg[pkg].add(t)
		}
		var in []elf.Symbol
		for _, sy := range syms {
			if sy.Value >= sec.Addr && sy.Value < sec.Addr+sec.Size && sy.Size > 0 {
				in = append(in, sy)
			}
		}
		slices.SortFunc(in, func(a, b elf.Symbol) int { return cmp.Compare(a.Value, b.Value) })
		next := sec.Addr
		for _, sy := range in {
			lo, hi := max(sy.Value, next), min(sy.Value+sy.Size, sec.Addr+sec.Size)
			if lo > next {
				addTo("(between symbols)", count(next, lo))
			}
			if hi > lo {
				addTo(pkgOf(sy.Name), count(lo, hi))
				next = hi
			}
		}
		if next < sec.Addr+sec.Size {
			addTo("(between symbols)", count(next, sec.Addr+sec.Size))
		}
		var pkgs []string
		for p := range byPkg {
			pkgs = append(pkgs, p)
		}
		res := func(p string) uint64 { return byPkg[p].file + byPkg[p].anon }
		slices.SortFunc(pkgs, func(a, b string) int { return cmp.Or(cmp.Compare(res(b), res(a)), strings.Compare(a, b)) })
		fmt.Fprintf(w, "\n%s by package (top %d of %d)\n%-58s %9s %9s %9s %5s\n", name, top, len(pkgs), "package", "size kB", "file kB", "anon kB", "res%")
		var rest tally
		for i, p := range pkgs {
			t := byPkg[p]
			if i >= top {
				rest.add(*t)
				continue
			}
			fmt.Fprintf(w, "%-58s %9.0f %9.0f %9.0f %4.0f%%\n", p, kb(t.size), kb(t.file), kb(t.anon), pct(t.file+t.anon, t.size))
		}
		fmt.Fprintf(w, "%-58s %9.0f %9.0f %9.0f %4.0f%%\n", "(the rest)", kb(rest.size), kb(rest.file), kb(rest.anon), pct(rest.file+rest.anon, rest.size))
	}
	return nil
}

func kb(b uint64) float64 { return float64(b) / 1024 }

func pct(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// pkgOf returns the Go package a symbol belongs to: the import path before
// the first dot after the last slash, with the linker's prefixes (type:,
// go:itab., go:string.) and a type's element operators stripped.
func pkgOf(name string) string {
	switch {
	case strings.HasPrefix(name, "go:string."), strings.HasPrefix(name, "go:func."):
		return name[:strings.IndexByte(name[3:], '.')+3]
	case strings.HasPrefix(name, "runtime.") && !strings.Contains(name, "/"):
		return "runtime"
	}
	prefix := ""
	for _, p := range []string{"type:.eq.", "type:.namedata.", "type:.importpath.", "type:", "go:itab.", "go:"} {
		if rest, ok := strings.CutPrefix(name, p); ok {
			prefix, name = strings.TrimSuffix(p, "."), rest
			break
		}
	}
	name = strings.TrimLeft(name, "*[]0123456789")
	for _, op := range []string{"map[", "chan ", "func(", "struct {", "interface {"} {
		if strings.HasPrefix(name, op) {
			return cmp.Or(prefix, "?") + " (composite)"
		}
	}
	if i := strings.IndexAny(name, "[("); i >= 0 {
		name = name[:i]
	}
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	pkg := name
	if dot >= 0 {
		pkg = name[:slash+1+dot]
	}
	if pkg == "" {
		pkg = "?"
	}
	if prefix != "" && prefix != "type" && prefix != "go:itab" {
		return prefix + " " + pkg
	}
	return pkg
}

// pageOut asks the kernel to reclaim every page of the executable's
// mappings in process pid (process_madvise(2) with MADV_PAGEOUT: the pages
// leave the process's page tables, and the page cache when nothing else
// maps them); what the process touches afterwards faults back in.
func pageOut(pid int, bin string) error {
	s, err := take(pid, bin)
	if err != nil {
		return err
	}
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if errno != 0 {
		return fmt.Errorf("pidfd_open: %v", errno)
	}
	defer syscall.Close(int(fd))
	for _, m := range s.exe {
		iov := [2]uint64{m.start, m.end - m.start} // a struct iovec of the other process's addresses
		_, _, errno := syscall.Syscall6(sysProcessMadvise, fd, uintptr(unsafe.Pointer(&iov)), 1, madvPageout, 0, 0)
		if errno != 0 {
			return fmt.Errorf("process_madvise(MADV_PAGEOUT) on %x-%x: %v", m.start, m.end, errno)
		}
	}
	return nil
}

const (
	sysPidfdOpen      = 434 // the same number on every Linux architecture since 5.3
	sysProcessMadvise = 440
	madvPageout       = 21
)

type region struct {
	name   string
	lo, hi uint64
}

// regions splits .rodata at the linker's marker symbols (types, strings,
// function descriptors, GC bitmaps, the rest) and .gopclntab with its header
// (pcHeader: function names, compilation units, file names, pc-value
// tables, the function table) and its funcdata and findfunctab symbols.
func regions(f *elf.File) []region {
	syms, _ := f.Symbols()
	addr := map[string]uint64{}
	for _, s := range syms {
		addr[s.Name] = s.Value
	}
	var out []region
	if ro := f.Section(".rodata"); ro != nil {
		marks := []region{{"rodata: types", addr["runtime.types"], 0}, {"rodata: strings", addr["go:string.*"], 0},
			{"rodata: func descriptors", addr["go:funcdesc"], 0}, {"rodata: GC bitmaps", addr["runtime.gcbits.*"], 0},
			{"rodata: the rest", addr["runtime.egcbss"], 0}}
		for i := range marks {
			marks[i].hi = ro.Addr + ro.Size
			if i+1 < len(marks) {
				marks[i].hi = marks[i+1].lo
			}
			if marks[i].lo >= ro.Addr && marks[i].lo < marks[i].hi {
				out = append(out, marks[i])
			}
		}
	}
	pc := f.Section(".gopclntab")
	if pc == nil {
		return out
	}
	hdr := make([]byte, 8+8*8)
	if _, err := pc.ReadAt(hdr, 0); err != nil || pc.Addr == 0 {
		return out
	}
	word := func(i int) uint64 { return binary.LittleEndian.Uint64(hdr[8+8*i:]) }
	// pcHeader: magic, pads, minLC, ptrSize, then nfunc, nfiles, textStart,
	// funcnameOffset, cuOffset, filetabOffset, pctabOffset, pclnOffset.
	names := []string{"pclntab: function names", "pclntab: compilation units", "pclntab: file names", "pclntab: pc-value tables", "pclntab: function table"}
	end := pc.Addr + pc.Size
	if fd := addr["go:func.*"]; fd > pc.Addr && fd < end {
		end = fd
	}
	for i, n := range names {
		lo, hi := pc.Addr+word(3+i), end
		if i+1 < len(names) {
			hi = pc.Addr + word(4+i)
		}
		if lo < hi && hi <= pc.Addr+pc.Size {
			out = append(out, region{n, lo, hi})
		}
	}
	if fd, ft := addr["go:func.*"], addr["runtime.findfunctab"]; fd > pc.Addr && ft > fd {
		out = append(out, region{"pclntab: funcdata (stack maps...)", fd, ft}, region{"pclntab: findfunctab", ft, pc.Addr + pc.Size})
	}
	return out
}
