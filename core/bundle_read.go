package core

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// BundleLimits bound what ReadBundle accepts (CONTRACTS.md §3).
type BundleLimits struct {
	MaxBytes       int64 // whole document
	MaxDepth       int   // nesting of arrays and objects
	MaxStringBytes int   // one string, as written (escapes count as written)
	MaxNodes       int   // values (objects, arrays, strings, numbers, literals); keys are not counted
}

// DefaultBundleLimits are the import limits for the configured ledger
// bound (DefaultLedgerBytes: REA_LEDGER_MAX_BYTES, else a sixteenth of the
// machine's memory, 64 MiB to 4 GiB): BundleLimitsFor(DefaultLedgerBytes()).
func DefaultBundleLimits() BundleLimits { return BundleLimitsFor(DefaultLedgerBytes()) }

// BundleLimitsFor are the import limits of a ledger holding at most
// ledgerBytes: the ledger's bytes plus 16 MiB, depth 64, strings as long as
// the ledger, one value per two bytes (80 MiB, 64 MiB and 40 Mi values for
// a 64 MiB ledger). They derive from the ledger's, so that whatever
// export_evidence_bundle writes from a ledger within its limits reads back:
// the document may hold the ledger's bytes plus the bundle's envelope and
// unknowns; one string may be as long as the whole ledger (a retained
// error's text); and every value takes at least two bytes with its
// separator. The reference's fixed read limits (strings of 1 MiB, 1,000,000
// values) refused rea's own exports. Depth stays 64: records are sealed
// canonical JSON no deeper than that.
func BundleLimitsFor(ledgerBytes int64) BundleLimits {
	if ledgerBytes <= 0 {
		ledgerBytes = LedgerMaxBytes
	}
	maxBytes := ledgerBytes + bundleEnvelopeBytes
	return BundleLimits{MaxBytes: maxBytes, MaxDepth: 64, MaxStringBytes: int(min(ledgerBytes, math.MaxInt)), MaxNodes: int(min(maxBytes/2, math.MaxInt))}
}

// bundleEnvelopeBytes bounds what a bundle adds to its records: the
// header, separators and the residual unknowns with their revisions.
const bundleEnvelopeBytes = 16 << 20

// EvidenceFileError reasons (CONTRACTS.md §3).
const (
	FileReasonNotFile     = "not-file"
	FileReasonTooLarge    = "too-large"
	FileReasonExists      = "exists"
	FileReasonInvalidJSON = "invalid-json"
	FileReasonIO          = "io"
	FileReasonMissing     = "missing"
	FileReasonPath        = "path"
	FileReasonDenied      = "access-denied"
)

// fileError is an EvidenceFileError: invalid-json is
// evidence_integrity_mismatch, io is execution_failure, the rest
// invalid_request (category invalid_input for missing, not-file and exists).
func fileError(op, reason, path, msg string, err error) *Error {
	// Causes the caller can act on are typed, not execution failures.
	switch {
	case reason == FileReasonIO && errors.Is(err, fs.ErrPermission):
		reason = FileReasonDenied
	case reason == FileReasonIO && errors.Is(err, syscall.ENAMETOOLONG):
		reason, msg = FileReasonPath, "the path or one of its names is too long: "+msg
	}
	code, cat := CodeInvalidRequest, CategoryInvalidInput
	switch reason {
	case FileReasonDenied:
		code, cat = CodeAccessDenied, ""
	case FileReasonInvalidJSON:
		code, cat = CodeEvidenceIntegrityMismatch, ""
	case FileReasonIO:
		code, cat = CodeExecutionFailure, ""
	case FileReasonTooLarge:
		cat = CategoryResourceConstraint
	}
	d := map[string]any{"operation": op, "reason": reason}
	if path != "" {
		d["path"] = path
	}
	e := &Error{Code: code, Category: cat, Message: "evidence bundle " + op + ": " + msg, Details: d, Err: err}
	switch reason {
	case FileReasonExists:
		e.Remediation = "Choose another path, or pass overwrite:true to replace the existing file."
	case FileReasonNotFile:
		e.Remediation = "Use a path that names a regular file (not a symlink, directory, FIFO or device)."
	case FileReasonMissing:
		e.Remediation = "Check the path; the file (or its directory) does not exist."
	case FileReasonPath:
		e.Remediation = "Pass an absolute path of a file, without NUL bytes and within the file system's name limits."
	case FileReasonDenied:
		e.Remediation = "rea may not read or write there: choose a path in a directory the user running rea can use, or fix its permissions."
	case FileReasonTooLarge:
		e.Remediation = "The bundle exceeds the import limits; split the investigation into smaller bundles."
	}
	return e
}

// integrityError is a bundle that parses but is not a valid canonical
// bundle.
func integrityError(path, reason, msg string, extra map[string]any) *Error {
	d := map[string]any{"operation": "read", "reason": reason}
	if path != "" {
		d["path"] = path
	}
	maps.Copy(d, extra)
	return &Error{Code: CodeEvidenceIntegrityMismatch, Message: "evidence bundle: " + msg, Details: d, Remediation: bundleEdited}
}

// BundleInfo describes a bundle ReadBundle accepted.
type BundleInfo struct {
	Bytes    int64
	Digest   string // hex SHA-256 of the bytes, the bundle digest
	Records  int
	Unknowns []*Unknown
}

// limitError reports a read limit.
type limitError struct {
	limit string
	max   int64
}

func (e *limitError) Error() string {
	return fmt.Sprintf("bundle exceeds its %s limit (%d)", e.limit, e.max)
}

// guard passes bytes through while hashing them and enforcing the limits
// with a small lexical scanner, so an oversized or too-deep document fails
// while it is read, before it is decoded.
type guard struct {
	r      io.Reader
	lim    BundleLimits
	h      hash.Hash
	n      int64
	stack  []byte // '{' or '['
	key    bool   // the next string in this object is a key
	inStr  bool
	esc    bool
	strLen int
	scalar bool
	nodes  int
	err    error
}

func (g *guard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	g.n += int64(n)
	if g.n > g.lim.MaxBytes {
		g.err = &limitError{"bytes", g.lim.MaxBytes}
		return 0, g.err
	}
	g.h.Write(p[:n])
	if serr := g.scan(p[:n]); serr != nil {
		g.err = serr
		return 0, serr
	}
	return n, err
}

func (g *guard) scan(p []byte) error {
	for _, c := range p {
		if g.inStr {
			switch {
			case g.esc:
				g.esc = false
				g.strLen++
			case c == '\\':
				g.esc = true
				g.strLen++
			case c == '"':
				g.inStr = false
			default:
				g.strLen++
			}
			if g.strLen > g.lim.MaxStringBytes {
				return &limitError{"string", int64(g.lim.MaxStringBytes)}
			}
			continue
		}
		isScalar := c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if isScalar {
			if !g.scalar {
				g.nodes++
			}
			g.scalar = true
		} else {
			g.scalar = false
		}
		switch c {
		case '"':
			if !g.key {
				g.nodes++
			}
			g.key = false
			g.inStr, g.strLen = true, 0
		case '{', '[':
			g.nodes++
			g.stack = append(g.stack, c)
			g.key = c == '{'
			if len(g.stack) > g.lim.MaxDepth {
				return &limitError{"depth", int64(g.lim.MaxDepth)}
			}
		case '}', ']':
			if len(g.stack) > 0 {
				g.stack = g.stack[:len(g.stack)-1]
			}
			g.key = false
		case ',':
			g.key = len(g.stack) > 0 && g.stack[len(g.stack)-1] == '{'
		}
		if g.nodes > g.lim.MaxNodes {
			return &limitError{"nodes", int64(g.lim.MaxNodes)}
		}
	}
	return nil
}

// ReadBundle reads and validates a canonical Evidence bundle from r as a
// stream: records are decoded one at a time, re-parsed with ParseEvidence
// (which re-derives each ID) and handed to visit; the reader keeps only
// their IDs and the manifests. After the last byte it checks, in the
// contract's order, the schema, duplicate IDs, the unknown graph and that
// the canonical rebuild equals the input ("manifests are not canonical").
//
// The bundle is valid only when ReadBundle returns nil: visit must not
// publish anything before that. limits nil means DefaultBundleLimits. Every
// failure is an *Error (EvidenceFileError reasons, or
// evidence_integrity_mismatch with details.reason).
func ReadBundle(ctx context.Context, r io.Reader, limits *BundleLimits, visit func(*Evidence) error) (*BundleInfo, error) {
	return readBundle(ctx, r, "", limits, visit)
}

func readBundle(ctx context.Context, r io.Reader, path string, limits *BundleLimits, visit func(*Evidence) error) (*BundleInfo, error) {
	lim := *cmp.Or(limits, new(DefaultBundleLimits()))
	g := &guard{r: r, lim: lim, h: sha256.New()}
	dec := json.NewDecoder(g)
	dec.UseNumber()
	// schema: a file that is not a bundle this rea reads, with advice that says what it is.
	schema := func(advice, format string, args ...any) *Error {
		e := fileError("read", FileReasonInvalidJSON, path, fmt.Sprintf(format, args...), nil)
		e.Remediation = advice
		return e
	}
	advice := bundleNot // for invalid JSON: no bundle until its first field is read, then a damaged one
	fail := func(err error, what string) *Error {
		if le, ok := errors.AsType[*limitError](err); ok {
			e := fileError("read", FileReasonTooLarge, path, le.Error(), err)
			e.Details["limit"], e.Details["maximum"] = le.limit, le.max
			return e
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return AsError("import_evidence_bundle", err)
		}
		_, syntax := errors.AsType[*json.SyntaxError](err)
		if _, typ := errors.AsType[*json.UnmarshalTypeError](err); syntax || typ { // the bytes, not the fields, are wrong: damaged or not JSON
			return schema(advice, "%s is not valid JSON: %v", what, err)
		} else if errors.Is(err, io.EOF) && g.n == 0 {
			return schema(bundleNot, "the file is empty")
		} else if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return schema("The bundle is cut short (a copy or download that stopped early): copy it again, or re-export it from the session that produced it.", "the file ends after %d bytes, before the end of %s: it was cut short", g.n, what)
		} else if ce, ok := errors.AsType[*Error](err); ok {
			return ce // a schema error, already a file error
		}
		return fileError("read", FileReasonIO, path, what+": "+err.Error(), err)
	}
	expected := sha256.New()
	tok, err := dec.Token()
	if d, ok := tok.(json.Delim); err == nil && (!ok || d != '{') {
		err = schema(bundleNot, "the file is JSON but not an object, so not an Evidence bundle")
	}
	if err != nil {
		return nil, fail(err, "the file")
	}
	expected.Write([]byte{'{'})
	var (
		order       []string
		inputMan    = map[string][]byte{}
		rawUnknowns []json.RawMessage
		ids         = map[EvidenceID]evidenceFacts{}
		m           = newManifests()
		prev        EvidenceID
		sorted      = true
		firstNonCan = -1
		dupID       EvidenceID
		records     int
	)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fail(err, "the bundle object")
		}
		key, _ := tok.(string)
		if !slices.Contains(bundleKeys, key) && slices.Contains(evidenceFields[:], key) {
			return nil, schema(bundleNot, "the file holds one Evidence record (it has %q), not a bundle: write a bundle with export_evidence_bundle "+
				"(rea evidence-export), or give the record where a tool takes Evidence inline (rea call --evidence NAME=@FILE)", key)
		}
		if !slices.Contains(bundleKeys, key) && len(order) == 0 { // a bundle's first field is "artifacts"
			return nil, schema(bundleNot, "the file is a JSON object without a bundle's fields (its first field is %q)", key)
		} else if !slices.Contains(bundleKeys, key) {
			return nil, schema(bundleOther, "unknown bundle field %q", key)
		}
		if slices.Contains(order, key) {
			return nil, schema(bundleEdited, "bundle field %q appears twice", key)
		}
		if len(order) > 0 {
			expected.Write([]byte{','})
		}
		order, advice = append(order, key), bundleEdited
		expected.Write(AppendCanonicalString(nil, key))
		expected.Write([]byte{':'})
		switch key {
		case "records":
			if tok, err := dec.Token(); err != nil {
				return nil, fail(err, "records")
			} else if d, ok := tok.(json.Delim); !ok || d != '[' {
				return nil, schema(bundleEdited, "records is an array")
			}
			expected.Write([]byte{'['})
			consume := func(r *parsedRecord) error {
				if r.err != nil {
					ce := AsError("import_evidence_bundle", r.err)
					d := map[string]any{"operation": "read", "record_index": records}
					maps.Copy(d, ce.Details)
					if path != "" {
						d["path"] = path
					}
					return &Error{Code: ce.Code, Message: fmt.Sprintf("evidence bundle: records[%d]: %s", records, ce.Message), Details: d, Err: r.err}
				}
				ev := r.ev
				if firstNonCan < 0 && !bytes.Equal(r.canon, r.raw) {
					firstNonCan = records
				}
				if records > 0 {
					expected.Write([]byte{','})
				}
				expected.Write(r.canon)
				if _, dup := ids[ev.EvidenceID]; dup && dupID == "" {
					dupID = ev.EvidenceID
				}
				if ev.EvidenceID <= prev {
					sorted = false
				}
				prev = ev.EvidenceID
				ids[ev.EvidenceID] = factsOf(ev)
				m.add(ev)
				records++
				if visit != nil {
					if err := visit(ev); err != nil {
						return AsError("import_evidence_bundle", err)
					}
				}
				return nil
			}
			rp := newRecordParser()
			defer rp.close()
			for dec.More() {
				if err := ctx.Err(); err != nil {
					return nil, fail(err, "records")
				}
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return nil, fail(err, fmt.Sprintf("records[%d]", records))
				}
				if r := rp.push(raw); r != nil {
					if err := consume(r); err != nil {
						return nil, err
					}
				}
			}
			for r := rp.pop(); r != nil; r = rp.pop() {
				if err := consume(r); err != nil {
					return nil, err
				}
			}
			if _, err := dec.Token(); err != nil {
				return nil, fail(err, "records")
			}
			expected.Write([]byte{']'})
		case "unknowns":
			if err := dec.Decode(&rawUnknowns); err != nil {
				return nil, fail(err, "unknowns")
			}
			if rawUnknowns == nil {
				return nil, schema(bundleEdited, "unknowns is an array")
			}
			expected.Write([]byte{'['})
			for i, raw := range rawUnknowns {
				c, err := Canonicalize(raw)
				if err != nil {
					return nil, schema(bundleEdited, "unknowns[%d]: %v", i, err)
				}
				if i > 0 {
					expected.Write([]byte{','})
				}
				expected.Write(c)
			}
			expected.Write([]byte{']'})
		default:
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, fail(err, key)
			}
			if err := checkManifestSchema(key, raw); err != nil {
				return nil, schema(bundleEdited, "%s: %v", key, err)
			}
			c, err := Canonicalize(raw)
			if err != nil {
				return nil, schema(bundleEdited, "%s: %v", key, err)
			}
			inputMan[key] = c
			expected.Write(c)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, fail(err, "the bundle object")
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = schema(bundleEdited, "data after the bundle object")
		}
		return nil, fail(err, "the bundle object")
	}
	expected.Write([]byte{'}'})
	// 1. schema: every field present.
	for _, k := range bundleKeys {
		if !slices.Contains(order, k) {
			return nil, schema(bundleOther, "missing bundle field %q", k)
		}
	}
	// 2. duplicate ids.
	if dupID != "" {
		return nil, integrityError(path, "duplicate-evidence-id", "evidence id "+string(dupID)+" appears more than once", map[string]any{"evidence_id": string(dupID)})
	}
	// 3. the unknown graph.
	unks := make([]*Unknown, 0, len(rawUnknowns))
	for i, raw := range rawUnknowns {
		u, err := parseUnknown(raw)
		if err != nil {
			return nil, schema(bundleEdited, "unknowns[%d]: %v", i, err)
		}
		unks = append(unks, u)
	}
	lookup := func(id EvidenceID) (evidenceFacts, bool) { f, ok := ids[id]; return f, ok }
	if err := validateUnknownGraph("import_evidence_bundle", unks, lookup); err != nil {
		ce := err.(*Error)
		ce.Message = "evidence bundle: " + ce.Message
		if path != "" {
			ce.Details["path"] = path
		}
		return nil, ce
	}
	// 4. (records were re-parsed as they were read.) 5. canonical rebuild.
	rebuilt, err := m.canonical()
	if err != nil {
		return nil, fail(err, "manifests")
	}
	for _, k := range []string{"artifacts", "captures", "environments", "providers", "scenarios"} {
		if !bytes.Equal(rebuilt[k], inputMan[k]) {
			return nil, integrityError(path, "non-canonical", "manifests are not canonical: "+k+" differs from the manifest rebuilt from the records",
				map[string]any{"field": k})
		}
	}
	sortedUnks := append([]*Unknown(nil), unks...)
	sortUnknowns(sortedUnks)
	for i := range unks {
		if unks[i] != sortedUnks[i] {
			return nil, integrityError(path, "non-canonical", "manifests are not canonical: unknowns are not sorted by (unknown_id, revision)", map[string]any{"field": "unknowns"})
		}
	}
	if !sorted {
		return nil, integrityError(path, "non-canonical", "manifests are not canonical: records are not sorted by evidence_id", map[string]any{"field": "records"})
	}
	if firstNonCan >= 0 {
		return nil, integrityError(path, "non-canonical", fmt.Sprintf("records[%d] is not in canonical JSON form", firstNonCan), map[string]any{"record_index": firstNonCan})
	}
	for i, k := range bundleKeys {
		if order[i] != k {
			return nil, integrityError(path, "non-canonical", "manifests are not canonical: bundle fields are not in canonical order", map[string]any{"field": order[i]})
		}
	}
	in, want := g.h.Sum(nil), expected.Sum(nil)
	if !bytes.Equal(in, want) {
		return nil, integrityError(path, "non-canonical", "the bundle is not in canonical JSON form (white space or escaping differs from the canonical rebuild)", nil)
	}
	return &BundleInfo{Bytes: g.n, Digest: hex.EncodeToString(in), Records: records, Unknowns: unks}, nil
}

// Advice for a file that is no bundle, a bundle of other fields (another version's), or an edited one.
const (
	bundleNot    = "The file is not an Evidence bundle: name a file that export_evidence_bundle (rea evidence-export) wrote."
	bundleOther  = "The bundle's fields are not this rea's (artifacts, captures, environments, providers, records, scenarios, unknowns): another version of rea wrote it; export it again with this one."
	bundleEdited = "Use the bundle exactly as export_evidence_bundle wrote it; re-export it from the session that produced it."
)

// checkManifestSchema strictly decodes a manifest array.
func checkManifestSchema(key string, raw json.RawMessage) error {
	var target any
	switch key {
	case "artifacts":
		target = &[]BundleArtifact{}
	case "providers":
		target = &[]ProviderRef{}
	case "environments":
		target = &[]Environment{}
	case "scenarios":
		target = &[]BundleScenario{}
	case "captures":
		target = &[]BundleCapture{}
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return errors.New("not an array")
	}
	return decodeStrictJSON(raw, target)
}

// decodeStrictJSON decodes raw into v, rejecting unknown fields and trailing data.
func decodeStrictJSON(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data")
	}
	return nil
}

// ReadBundleFile opens path (absolute; a regular file, symlinks to one
// allowed) and reads it with ReadBundle. A file larger than the byte limit
// fails before any of it is read; FIFOs and devices are never opened.
func ReadBundleFile(ctx context.Context, path string, limits *BundleLimits, visit func(*Evidence) error) (*BundleInfo, error) {
	lim := *cmp.Or(limits, new(DefaultBundleLimits()))
	if strings.ContainsRune(path, 0) {
		return nil, fileError("read", FileReasonPath, path, "the path contains a NUL byte", nil)
	}
	if !filepath.IsAbs(path) {
		return nil, fileError("read", FileReasonPath, path, path+" is not an absolute path", nil)
	}
	path = filepath.Clean(path)
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fileError("read", FileReasonMissing, path, path+" does not exist", err)
		}
		return nil, fileError("read", FileReasonIO, path, err.Error(), err)
	}
	if !st.Mode().IsRegular() {
		return nil, fileError("read", FileReasonNotFile, path, path+" is not a regular file", nil)
	}
	if st.Size() > lim.MaxBytes {
		e := fileError("read", FileReasonTooLarge, path, fmt.Sprintf("%s holds %d bytes, more than the %d-byte limit", path, st.Size(), lim.MaxBytes), nil)
		e.Details["limit"], e.Details["maximum"] = "bytes", lim.MaxBytes
		return nil, e
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fileError("read", FileReasonIO, path, err.Error(), err)
	}
	defer f.Close()
	if st2, err := f.Stat(); err != nil || !os.SameFile(st, st2) {
		return nil, fileError("read", FileReasonIO, path, path+" changed while it was opened", err)
	}
	return readBundle(ctx, f, path, &lim, visit)
}
