package core_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

const sha = "cb30d69b24245bf2ecdc9e7f53bbad19159999970b6d82c0c00c7d32d9e37aa4"

func profile(t *testing.T) *core.Profile {
	p, err := core.NewProfile(core.ProfileProvider{ID: "rea-native", Name: "rea built-in native analyzer", Version: "0.1.0"}, 1,
		map[string]any{"max_string_bytes": 4096})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func sample(t *testing.T, path string) *core.Evidence {
	v := "0.1.0"
	e := &core.Evidence{
		Subject:          core.NewSubject(path, sha, "elf", "x86_64"),
		Provider:         core.ProviderRef{ID: "rea-native", Name: "rea built-in native analyzer", Version: &v},
		AnalysisProfile:  profile(t),
		Operation:        "list_segments",
		Parameters:       json.RawMessage(`{"offset":0}`),
		NormalizedResult: json.RawMessage(`{"items":[{"name":".text","start":"0x46b0"}],"total":1}`),
	}
	if err := e.Seal(); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEvidenceIDIgnoresPath(t *testing.T) {
	is := is.New(t)
	a, b := sample(t, "/usr/bin/ls"), sample(t, "/tmp/copy-of-ls")
	is.Equal(a.EvidenceID, b.EvidenceID)
	is.Equal(a.Subject.Name, "ls")
	is.Equal(b.Subject.Name, "copy-of-ls")
	is.True(strings.HasPrefix(string(a.EvidenceID), "ev_"))
	_, err := core.ParseEvidenceID(string(a.EvidenceID))
	is.NoErr(err)
}

func TestEvidenceIDChangesWithEverySemanticField(t *testing.T) {
	base := sample(t, "/usr/bin/ls")
	v2 := "0.2.0"
	other := "ffff" + sha[4:]
	arm := "arm64"
	mutations := map[string]func(e *core.Evidence){
		"subject digest":    func(e *core.Evidence) { e.Subject.Digest.SHA256 = other },
		"subject format":    func(e *core.Evidence) { e.Subject.Format = "pe" },
		"subject arch":      func(e *core.Evidence) { e.Subject.Architecture = &arm },
		"no subject":        func(e *core.Evidence) { e.Subject = nil },
		"provider":          func(e *core.Evidence) { e.Provider.Version = &v2; e.AnalysisProfile = nil },
		"null profile":      func(e *core.Evidence) { e.AnalysisProfile = nil },
		"predicate":         func(e *core.Evidence) { e.PredicateType = "rea.other" },
		"operation":         func(e *core.Evidence) { e.Operation = "list_names" },
		"parameters":        func(e *core.Evidence) { e.Parameters = json.RawMessage(`{"offset":1}`) },
		"raw result":        func(e *core.Evidence) { e.RawResult = json.RawMessage(`"raw"`) },
		"normalized result": func(e *core.Evidence) { e.NormalizedResult = json.RawMessage(`{"total":2}`) },
		"confidence":        func(e *core.Evidence) { e.Confidence = core.ConfidenceDerived },
		"authority":         func(e *core.Evidence) { e.Authority = "analyst-inference" },
		"environment": func(e *core.Evidence) {
			e.Environment = &core.Environment{ID: "host", Platform: "linux", Architecture: "x86_64", Isolation: "none"}
		},
		"limitations":    func(e *core.Evidence) { e.Limitations = []string{"partial"} },
		"locations":      func(e *core.Evidence) { e.Locations = []core.Location{{Kind: "address", Address: "0x10"}} },
		"evidence links": func(e *core.Evidence) { e.EvidenceLinks = []core.EvidenceID{base.EvidenceID} },
	}
	seen := map[core.EvidenceID]string{base.EvidenceID: "base"}
	for name, mutate := range mutations {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			e := sample(t, "/usr/bin/ls")
			s := *e.Subject
			e.Subject = &s
			mutate(e)
			is.NoErr(e.Seal())
			if prev, dup := seen[e.EvidenceID]; dup {
				t.Fatalf("%s gives the same id as %s", name, prev)
			}
			seen[e.EvidenceID] = name
		})
	}
}

func TestEvidenceParseRoundTripAndTamper(t *testing.T) {
	is := is.New(t)
	e := sample(t, "/usr/bin/ls")
	raw, err := json.Marshal(e)
	is.NoErr(err)
	back, err := core.ParseEvidence(raw)
	is.NoErr(err)
	is.Equal(back.EvidenceID, e.EvidenceID)

	tampered := strings.Replace(string(raw), `"total":1`, `"total":9`, 1)
	_, err = core.ParseEvidence([]byte(tampered))
	is.True(err != nil)
	ce := core.AsError("test", err)
	is.Equal(ce.Code, core.CodeEvidenceIntegrityMismatch)
	is.Equal(ce.Details["reason"], "id_mismatch")

	var m map[string]any
	is.NoErr(json.Unmarshal(raw, &m))
	delete(m, "analysis_profile")
	noProfile, _ := json.Marshal(m)
	_, err = core.ParseEvidence(noProfile)
	is.Equal(core.AsError("t", err).Code, core.CodeEvidenceIntegrityMismatch)

	is.NoErr(json.Unmarshal(raw, &m))
	m["extra"] = 1
	extra, _ := json.Marshal(m)
	_, err = core.ParseEvidence(extra)
	is.True(err != nil)

	// A profile whose digest does not match its content is rejected.
	is.NoErr(json.Unmarshal(raw, &m))
	m["analysis_profile"].(map[string]any)["parameters"] = map[string]any{"max_string_bytes": 1}
	badProfile, _ := json.Marshal(m)
	_, err = core.ParseEvidence(badProfile)
	is.Equal(core.AsError("t", err).Code, core.CodeEvidenceIntegrityMismatch)
}

func TestEvidenceNullProfileKept(t *testing.T) {
	is := is.New(t)
	e := sample(t, "/usr/bin/ls")
	e.AnalysisProfile = nil
	is.NoErr(e.Seal())
	raw, _ := json.Marshal(e)
	is.True(strings.Contains(string(raw), `"analysis_profile":null`))
	_, err := core.ParseEvidence(raw)
	is.NoErr(err)
}

func TestProfileDigestAndLimits(t *testing.T) {
	is := is.New(t)
	p := profile(t)
	is.NoErr(p.Verify())
	is.True(p.Equal(profile(t)))
	deep := map[string]any{}
	cur := deep
	for i := 0; i < 20; i++ {
		next := map[string]any{}
		cur["x"] = next
		cur = next
	}
	_, err := core.NewProfile(core.ProfileProvider{ID: "a", Name: "a", Version: "1"}, 1, deep)
	is.True(err != nil)
	_, err = core.NewProfile(core.ProfileProvider{ID: "a", Name: "a", Version: ""}, 1, nil)
	is.True(err != nil)
}
