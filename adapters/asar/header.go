package asar

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
)

// node is one parsed entry. Nodes are immutable once NewReader returns.
type node struct {
	name     string
	path     string
	typ      Type
	size     int64
	offset   int64 // absolute
	exec     bool
	unpacked bool
	link     string
	integ    *Integrity
	children map[string]*node
	sorted   []*node // children by name
	target   *node   // for links: the resolved non-link node, or nil if dangling
	state    uint8   // link resolution: 0 new, 1 in progress, 2 done
	at       int64   // header offset of the entry, for errors
	parent   *node
	rejected string // why SkipUnsafeNames left the entry out ("" when kept)
	dropped  bool   // rejected, or beneath a rejected entry
	index    int    // position among the entries declared, in header order
}

func (n *node) entry() Entry {
	e := Entry{
		Path:       n.path,
		Type:       n.typ,
		Executable: n.exec,
		Unpacked:   n.unpacked,
		Link:       n.link,
		Integrity:  n.integ,
	}
	if n.typ == TypeFile {
		e.Size = n.size
		e.Offset = n.offset
	}
	return e
}

// header is the result of parsing an archive's prefix and JSON header.
type header struct {
	raw        []byte // the JSON text
	dataOffset int64
	root       *node
	nodes      []*node // every entry except the root
	links      []*node
}

// maxSkipDepth bounds the nesting of JSON values rea does not interpret.
const maxSkipDepth = 64

func readHeader(ra io.ReaderAt, size int64, o *Options) (*header, error) {
	if size < 8 {
		return nil, &FormatError{Reason: ReasonHeaderSize, Msg: fmt.Sprintf("archive of %d bytes is shorter than the 8-byte prefix", size)}
	}
	var prefix [8]byte
	if _, err := ra.ReadAt(prefix[:], 0); err != nil {
		return nil, fmt.Errorf("asar: read prefix: %w", err)
	}
	if n := binary.LittleEndian.Uint32(prefix[0:4]); n != 4 {
		return nil, &FormatError{Reason: ReasonHeaderSize, Msg: fmt.Sprintf("size pickle payload is %d, want 4", n)}
	}
	hs := int64(binary.LittleEndian.Uint32(prefix[4:8]))
	switch {
	case hs < 8:
		return nil, &FormatError{Offset: 4, Reason: ReasonHeaderSize, Msg: fmt.Sprintf("header pickle of %d bytes is too short", hs)}
	case hs > size-8:
		return nil, &FormatError{Offset: 4, Reason: ReasonHeaderSize, Msg: fmt.Sprintf("header pickle of %d bytes extends past the end of a %d-byte archive", hs, size)}
	case hs > o.MaxHeaderBytes:
		return nil, &FormatError{Offset: 4, Reason: ReasonLimit, Msg: fmt.Sprintf("header of %d bytes exceeds the limit of %d", hs, o.MaxHeaderBytes)}
	}
	buf := make([]byte, hs)
	if n, err := ra.ReadAt(buf, 8); n < len(buf) {
		return nil, fmt.Errorf("asar: read header: %w", err)
	}
	payload := int64(binary.LittleEndian.Uint32(buf[0:4]))
	if payload < 4 || payload > hs-4 {
		return nil, &FormatError{Offset: 8, Reason: ReasonHeaderSize, Msg: fmt.Sprintf("header pickle payload of %d bytes does not fit its %d-byte pickle", payload, hs)}
	}
	strLen := int64(int32(binary.LittleEndian.Uint32(buf[4:8])))
	if strLen < 0 || strLen > payload-4 {
		return nil, &FormatError{Offset: 12, Reason: ReasonHeaderSize, Msg: fmt.Sprintf("header string of %d bytes does not fit its %d-byte payload", strLen, payload)}
	}
	raw := buf[8 : 8+strLen]
	dataOffset := 8 + hs

	p := &parser{lex: lexer{b: raw}, base: 16, opts: o, dataOffset: dataOffset, dataLen: size - dataOffset}
	root := &node{typ: TypeDir, children: map[string]*node{}}
	if err := p.parseRoot(root); err != nil {
		return nil, err
	}
	return &header{raw: raw, dataOffset: dataOffset, root: root, nodes: p.nodes, links: p.links}, nil
}

type parser struct {
	lex        lexer
	base       int64 // absolute offset of the JSON text
	opts       *Options
	dataOffset int64
	dataLen    int64
	nodes      []*node
	links      []*node
}

func (p *parser) off() int64 { return p.base + int64(p.lex.i) }

func (p *parser) fail(reason, path, format string, args ...any) error {
	return &FormatError{Offset: p.off(), Reason: reason, Path: path, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) token() (token, error) {
	t, err := p.lex.next()
	if err != nil {
		return token{}, &FormatError{Offset: p.off(), Reason: ReasonJSON, Msg: err.Error(), Err: err}
	}
	return t, nil
}

// key reads an object key, or returns "", false at the closing brace.
func (p *parser) key() (string, bool, error) {
	t, err := p.token()
	if err != nil {
		return "", false, err
	}
	if t.kind == tokObjectEnd {
		return "", false, nil
	}
	return t.s, true, nil // the lexer returns only strings as keys
}

func (p *parser) openObject(reason, path, what string) error {
	t, err := p.token()
	if err != nil {
		return err
	}
	if t.kind != tokObject {
		return p.fail(reason, path, "%s is not a JSON object", what)
	}
	return nil
}

func (p *parser) skip() error {
	depth := 0
	for {
		t, err := p.token()
		if err != nil {
			return err
		}
		switch t.kind {
		case tokObject, tokArray:
			depth++
			if depth > maxSkipDepth {
				return p.fail(ReasonDepth, "", "unrecognised value nests deeper than %d", maxSkipDepth)
			}
		case tokObjectEnd, tokArrayEnd:
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

func (p *parser) parseRoot(root *node) error {
	if err := p.openObject(ReasonNotObject, "", "header"); err != nil {
		return err
	}
	seen := false
	for {
		k, ok, err := p.key()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if k != "files" {
			if err := p.skip(); err != nil {
				return err
			}
			continue
		}
		if seen {
			return p.fail(ReasonJSON, "", "duplicate key \"files\"")
		}
		seen = true
		if err := p.parseDir(root, 0); err != nil {
			return err
		}
	}
	if !p.lex.atEOF() {
		return p.fail(ReasonJSON, "", "data after the header object")
	}
	if !seen {
		return p.fail(ReasonNotObject, "", "header has no \"files\" object")
	}
	return nil
}

func (p *parser) parseDir(dir *node, depth int) error {
	if err := p.openObject(ReasonNotObject, dir.path, "\"files\""); err != nil {
		return err
	}
	var folds map[string]string
	for {
		start := p.off()
		name, ok, err := p.key()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		path := name
		if dir.path != "" {
			path = dir.path + "/" + name
		}
		nameErr := checkName(name)
		if nameErr == nil && len(path) > p.opts.MaxPathBytes {
			nameErr = &NameError{Name: name, Reason: "too-long"}
		}
		if nameErr == nil {
			if _, dup := dir.children[name]; dup {
				nameErr = &NameError{Name: name, Reason: "duplicate"}
			}
		}
		fk := foldKey(name)
		msg := ""
		if other, dup := folds[fk]; nameErr == nil && dup && !p.opts.AllowCaseCollisions {
			nameErr = &NameError{Name: name, Reason: "case-collision"}
			msg = fmt.Sprintf(" with %q", other)
		}
		if nameErr != nil && (!p.opts.SkipUnsafeNames || nameErr.Reason == "too-long") { // a limit, not a name to skip
			return &FormatError{Offset: start, Reason: ReasonPath, Path: path, Msg: nameErr.Error() + msg, Err: nameErr}
		}
		if nameErr == nil {
			if folds == nil {
				folds = map[string]string{}
			}
			folds[fk] = name
		}
		if len(p.nodes) >= p.opts.MaxEntries {
			return &FormatError{Offset: start, Reason: ReasonLimit, Path: path, Msg: fmt.Sprintf("more than %d entries", p.opts.MaxEntries)}
		}
		if depth+1 > p.opts.MaxDepth {
			return &FormatError{Offset: start, Reason: ReasonDepth, Path: path, Msg: fmt.Sprintf("directories nest deeper than %d", p.opts.MaxDepth)}
		}
		n := &node{name: name, path: path, at: start, parent: dir, index: len(p.nodes)}
		switch {
		case nameErr == nil:
			dir.children[name] = n
		case nameErr.Reason == "duplicate":
			// Readers disagree on which copy of a key wins: both go.
			n.rejected, dir.children[name].rejected = nameErr.Reason, nameErr.Reason
		default:
			// Still parsed, for its kind and size, and left out with
			// everything beneath it.
			n.rejected = nameErr.Reason
		}
		p.nodes = append(p.nodes, n)
		if err := p.parseEntry(n, depth+1); err != nil {
			return err
		}
	}
}

// Keys of an entry and of its integrity object, each allowed once.
const (
	keyFiles = 1 << iota
	keySize
	keyOffset
	keyExecutable
	keyUnpacked
	keyLink
	keyIntegrity
	keyAlgorithm
	keyHash
	keyBlockSize
	keyBlocks
)

// entryKey and integrityKey are a key's bit, 0 for a key ignored
// (switches: a package-level map is built by init code every rea process
// runs).
func entryKey(k string) int {
	switch k {
	case "files":
		return keyFiles
	case "size":
		return keySize
	case "offset":
		return keyOffset
	case "executable":
		return keyExecutable
	case "unpacked":
		return keyUnpacked
	case "link":
		return keyLink
	case "integrity":
		return keyIntegrity
	}
	return 0
}

func integrityKey(k string) int {
	switch k {
	case "algorithm":
		return keyAlgorithm
	case "hash":
		return keyHash
	case "blockSize":
		return keyBlockSize
	case "blocks":
		return keyBlocks
	}
	return 0
}

func (p *parser) parseEntry(n *node, depth int) error {
	if err := p.openObject(ReasonNotObject, n.path, "entry"); err != nil {
		return err
	}
	seen := 0
	var rel int64
	for {
		k, ok, err := p.key()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		bit := entryKey(k)
		if seen&bit != 0 {
			return p.fail(ReasonJSON, n.path, "duplicate key %q", k)
		}
		seen |= bit
		switch bit {
		case keyFiles:
			n.typ = TypeDir
			n.children = map[string]*node{}
			err = p.parseDir(n, depth)
		case keySize:
			n.size, err = p.integer(ReasonSize, n.path, "size")
		case keyOffset:
			var t token
			if t, err = p.token(); err != nil {
				return err
			}
			if t.kind != tokString {
				return p.fail(ReasonOffset, n.path, "offset is not a string")
			}
			if rel, ok = decimal(t.s); !ok {
				return p.fail(ReasonOffset, n.path, "offset %.40q is not a decimal string", t.s)
			}
		case keyExecutable:
			n.exec, err = p.boolean(n.path, k)
		case keyUnpacked:
			n.unpacked, err = p.boolean(n.path, k)
		case keyLink:
			var t token
			if t, err = p.token(); err != nil {
				return err
			}
			if t.kind != tokString {
				return p.fail(ReasonLink, n.path, "link is not a string")
			}
			n.link = t.s
			if n.typ != TypeDir {
				n.typ = TypeLink
			}
		case keyIntegrity:
			n.integ, err = p.parseIntegrity(n.path)
		default:
			err = p.skip()
		}
		if err != nil {
			return err
		}
	}
	fail := func(reason, format string, args ...any) error {
		return &FormatError{Offset: n.at, Reason: reason, Path: n.path, Msg: fmt.Sprintf(format, args...)}
	}
	hasSize, hasOffset := seen&keySize != 0, seen&keyOffset != 0
	switch {
	case seen&keyFiles != 0:
		if seen&keyLink != 0 || hasSize || hasOffset {
			return fail(ReasonEntry, "directory entry also has a link, size or offset")
		}
	case seen&keyLink != 0:
		if hasSize || hasOffset {
			return fail(ReasonEntry, "link entry also has a size or offset")
		}
		if err := checkPath(n.link, p.opts.MaxPathBytes); err != nil {
			if p.opts.SkipUnsafeNames && err.Reason != "too-long" {
				n.rejected = cmp.Or(n.rejected, "link-"+err.Reason)
				break
			}
			return &FormatError{Offset: n.at, Reason: ReasonLink, Path: n.path, Msg: fmt.Sprintf("link target %.80q is not a path inside the archive: %s", n.link, err.Reason), Err: err}
		}
		p.links = append(p.links, n)
	default:
		n.typ = TypeFile
		if !hasSize {
			return fail(ReasonSize, "file has no size")
		}
		if n.unpacked {
			break
		}
		if !hasOffset {
			return fail(ReasonOffset, "packed file has no offset")
		}
		if rel > p.dataLen {
			return fail(ReasonOffset, "offset %d is past the end of %d bytes of data", rel, p.dataLen)
		}
		if n.size > p.dataLen-rel {
			return fail(ReasonSize, "%d bytes at offset %d extend past the end of %d bytes of data", n.size, rel, p.dataLen)
		}
		n.offset = p.dataOffset + rel
	}
	return nil
}

func (p *parser) integer(reason, path, what string) (int64, error) {
	t, err := p.token()
	if err != nil {
		return 0, err
	}
	if t.kind != tokNumber {
		return 0, p.fail(reason, path, "%s is not a number", what)
	}
	if t.num[0] == '-' {
		return 0, p.fail(reason, path, "%s %.40s is negative", what, t.num)
	}
	v, ok := decimalBytes(t.num)
	if !ok {
		return 0, p.fail(reason, path, "%s %.40s is not a non-negative integer", what, t.num)
	}
	return v, nil
}

func (p *parser) boolean(path, what string) (bool, error) {
	t, err := p.token()
	if err != nil {
		return false, err
	}
	if t.kind != tokTrue && t.kind != tokFalse {
		return false, p.fail(ReasonEntry, path, "%s is not a boolean", what)
	}
	return t.kind == tokTrue, nil
}

// sha256Name is the one algorithm name archives declare, kept once.
const sha256Name = "SHA256"

func (p *parser) parseIntegrity(path string) (*Integrity, error) {
	if err := p.openObject(ReasonIntegrity, path, "integrity"); err != nil {
		return nil, err
	}
	in := &Integrity{}
	seen := 0
	for {
		k, ok, err := p.key()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		bit := integrityKey(k)
		if seen&bit != 0 {
			return nil, p.fail(ReasonJSON, path, "duplicate key %q in integrity", k)
		}
		seen |= bit
		switch bit {
		case keyAlgorithm, keyHash:
			t, err := p.token()
			if err != nil {
				return nil, err
			}
			if t.kind != tokString {
				return nil, p.fail(ReasonIntegrity, path, "integrity %s is not a string", k)
			}
			if bit == keyAlgorithm {
				in.Algorithm = t.s
				if t.s == sha256Name {
					in.Algorithm = sha256Name
				}
			} else {
				in.Hash = t.s
			}
		case keyBlockSize:
			if in.BlockSize, err = p.integer(ReasonIntegrity, path, "integrity blockSize"); err != nil {
				return nil, err
			}
			if in.BlockSize == 0 {
				return nil, p.fail(ReasonIntegrity, path, "integrity blockSize is 0")
			}
		case keyBlocks:
			t, err := p.token()
			if err != nil {
				return nil, err
			}
			if t.kind != tokArray {
				return nil, p.fail(ReasonIntegrity, path, "integrity blocks is not an array")
			}
			in.Blocks = []string{}
			for p.lex.more() {
				t, err := p.token()
				if err != nil {
					return nil, err
				}
				if t.kind != tokString {
					return nil, p.fail(ReasonIntegrity, path, "integrity block hash is not a string")
				}
				in.Blocks = append(in.Blocks, t.s)
			}
			if _, err := p.token(); err != nil { // the ']'
				return nil, err
			}
		default:
			if err := p.skip(); err != nil {
				return nil, err
			}
		}
	}
	for _, k := range []string{"algorithm", "hash", "blockSize", "blocks"} {
		if seen&integrityKey(k) == 0 {
			return nil, p.fail(ReasonIntegrity, path, "integrity has no %s", k)
		}
	}
	return in, nil
}

// decimalBytes is decimal for a number's text.
func decimalBytes(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, v >= 0 // 19 digits can overflow
}

// decimal parses a non-empty string of ASCII digits that fits an int64.
func decimal(s string) (int64, bool) {
	if s == "" || len(s) > 19 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}
