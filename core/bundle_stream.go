package core

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
)

// manifests accumulates a bundle's manifests from its records (NewBundle and
// WriteBundle both build them here): unique, sorted by their compact JSON
// (sorted, byJSON). Entries are
// deduplicated on a cheap key while records stream; the JSON sort keys are
// computed once per distinct entry.
type manifests struct {
	arts      map[string]BundleArtifact
	provs     map[string]ProviderRef
	envs      map[Environment]bool
	scenarios []BundleScenario
	captures  []BundleCapture
}

func newManifests() *manifests {
	return &manifests{arts: map[string]BundleArtifact{}, provs: map[string]ProviderRef{}, envs: map[Environment]bool{},
		scenarios: []BundleScenario{}, captures: []BundleCapture{}}
}

func optKey(s *string) string {
	if s == nil {
		return "\x01"
	}
	return "\x02" + *s
}

func (m *manifests) add(r *Evidence) {
	if s := r.Subject; s != nil {
		k := s.Digest.SHA256 + "\x00" + s.Format + "\x00" + optKey(s.Architecture)
		if _, ok := m.arts[k]; !ok {
			m.arts[k] = BundleArtifact{Digest: s.Digest, Format: s.Format, Architecture: s.Architecture}
		}
	}
	pk := r.Provider.ID + "\x00" + r.Provider.Name + "\x00" + optKey(r.Provider.Version)
	if _, ok := m.provs[pk]; !ok {
		m.provs[pk] = r.Provider
	}
	if r.Environment != nil {
		m.envs[*r.Environment] = true
	}
	if r.Authority == "controlled-replay" {
		m.scenarios = append(m.scenarios, BundleScenario{r.EvidenceID, r.Operation, r.Authority})
	}
	if r.PredicateType == "rea.process-capture" {
		m.captures = append(m.captures, BundleCapture{r.EvidenceID, r.PredicateType})
	}
}

// byJSON returns vs without repeats, sorted by their compact JSON.
func byJSON[V any](vs []V) []V {
	keys := make(map[string]V, len(vs))
	for _, v := range vs {
		keys[keyJSON(v)] = v
	}
	out := make([]V, 0, len(keys))
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		out = append(out, keys[k])
	}
	return out
}

// sorted returns the artifact, provider and environment manifests in
// NewBundle's order.
func (m *manifests) sorted() ([]BundleArtifact, []ProviderRef, []Environment) {
	arts := make([]BundleArtifact, 0, len(m.arts))
	for _, a := range m.arts {
		arts = append(arts, a)
	}
	provs := make([]ProviderRef, 0, len(m.provs))
	for _, p := range m.provs {
		provs = append(provs, p)
	}
	envs := make([]Environment, 0, len(m.envs))
	for e := range m.envs {
		envs = append(envs, e)
	}
	return byJSON(arts), byJSON(provs), byJSON(envs)
}

// canonical returns the JCS of each manifest, keyed by bundle field.
func (m *manifests) canonical() (map[string][]byte, error) {
	arts, provs, envs := m.sorted()
	out := map[string][]byte{}
	for k, v := range map[string]any{"artifacts": arts, "providers": provs, "environments": envs,
		"scenarios": m.scenarios, "captures": m.captures} {
		c, err := CanonicalJSON(v)
		if err != nil {
			return nil, err
		}
		out[k] = c
	}
	return out, nil
}

// bundleKeys are the bundle's fields in JCS order.
var bundleKeys = []string{"artifacts", "captures", "environments", "providers", "records", "scenarios", "unknowns"}

// BundleStats describes a written bundle.
type BundleStats struct {
	Bytes    int64
	Records  int
	Unknowns int
}

// errUnsorted reports a BundleSource whose records are not strictly
// increasing by evidence_id.
var errUnsorted = errors.New("bundle: records are not sorted by evidence_id or repeat one")

// WriteBundle streams the canonical JSON of src to w, one record at a time:
// the document is never built in memory. It checks ctx before every record
// and stops with ctx's error; progress, when set, is called after every
// 1000 records. The bytes equal CanonicalJSON(NewBundle(...)) with the
// unknowns.
func WriteBundle(ctx context.Context, w io.Writer, src BundleSource, progress func(records int)) (BundleStats, error) {
	var st BundleStats
	m := newManifests()
	var prev EvidenceID
	for r := range src.Records {
		if r.EvidenceID <= prev {
			return st, errUnsorted
		}
		prev = r.EvidenceID
		m.add(r)
	}
	man, err := m.canonical()
	if err != nil {
		return st, err
	}
	bw := bufio.NewWriterSize(&countWriter{w: w, n: &st.Bytes}, 256<<10)
	buf := make([]byte, 0, 64<<10)
	for i, key := range bundleKeys {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if i == 0 {
			buf = append(buf, '{')
		} else {
			buf = append(buf, ',')
		}
		buf = AppendCanonicalString(buf, key)
		buf = append(buf, ':')
		switch key {
		case "records":
			buf = append(buf, '[')
			for r := range src.Records {
				if err := ctx.Err(); err != nil {
					return st, err
				}
				if st.Records > 0 {
					buf = append(buf, ',')
				}
				if buf, err = AppendCanonicalEvidence(buf, r); err != nil {
					return st, fmt.Errorf("bundle: record %s: %w", r.EvidenceID, err)
				}
				if _, err := bw.Write(buf); err != nil {
					return st, err
				}
				buf = buf[:0]
				st.Records++
				if progress != nil && st.Records%1000 == 0 {
					progress(st.Records)
				}
			}
			buf = append(buf, ']')
		case "unknowns":
			buf = append(buf, '[')
			for j, u := range src.Unknowns {
				if j > 0 {
					buf = append(buf, ',')
				}
				c, err := CanonicalJSON(u)
				if err != nil {
					return st, err
				}
				buf = append(buf, c...)
			}
			buf = append(buf, ']')
			st.Unknowns = len(src.Unknowns)
		default:
			buf = append(buf, man[key]...)
		}
	}
	buf = append(buf, '}')
	if _, err := bw.Write(buf); err != nil {
		return st, err
	}
	return st, bw.Flush()
}

type countWriter struct {
	w io.Writer
	n *int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	*c.n += int64(n)
	return n, err
}

// NewBundleWith is NewBundle with the residual unknowns, sorted by
// (unknown_id, revision).
func NewBundleWith(records []*Evidence, unknowns []*Unknown) (*Bundle, error) {
	b := NewBundle(records)
	unks := append([]*Unknown(nil), unknowns...)
	sort.SliceStable(unks, func(i, j int) bool {
		if unks[i].UnknownID != unks[j].UnknownID {
			return unks[i].UnknownID < unks[j].UnknownID
		}
		return unks[i].Revision < unks[j].Revision
	})
	for _, u := range unks {
		c, err := CanonicalJSON(u)
		if err != nil {
			return nil, err
		}
		b.Unknowns = append(b.Unknowns, c)
	}
	return b, nil
}
