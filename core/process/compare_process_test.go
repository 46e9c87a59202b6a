package process_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
)

// build is the sampled process tree of `make -j2` compiling a.c and b.c,
// the jobs started in the order given, gcc's intermediate files named
// with the suffixes given (as mkstemp draws them), as the pty engine
// records it: ids in first-seen order, the temporary root normalized.
func build(order []string, tmp map[string]string, opt map[string]string) []ports.NormalizedProcess {
	tree := []ports.NormalizedProcess{{ID: 1, ParentID: 0, GroupID: 1, SessionID: 1, Command: "make -j2"}}
	add := func(parent int, cmd string) int {
		id := len(tree) + 1
		tree = append(tree, ports.NormalizedProcess{ID: id, ParentID: parent, GroupID: 1, SessionID: 1, Command: cmd})
		return id
	}
	var gccs []int
	for _, f := range order {
		gccs = append(gccs, add(1, "gcc -c "+f+".c"))
	}
	for i, f := range order {
		s := "<temporary-root>/cc" + tmp[f] + ".s"
		o := ""
		if opt[f] != "" {
			o = " " + opt[f]
		}
		add(gccs[i], "/usr/libexec/gcc/x86_64-linux-gnu/12/cc1 -quiet "+f+".c"+o+" -o "+s)
	}
	for i, f := range order {
		add(gccs[i], "as --64 -o "+f+".o <temporary-root>/cc"+tmp[f]+".s")
	}
	return tree
}

// TestCompareProcessCapturesMatchesProcessesByCommand: two captures of
// the same build whose make started its jobs in another order, and whose
// gcc drew other temporary names, hold the same processes: the process
// dimension is not changed (unknown, as every sampled tree is) and there
// is no first divergence. Before, the trees were compared id by id and
// every such pair was changed. A compiler given another option, or run
// under the other job's gcc, is still a change, reported as the process
// each side lacks.
func TestCompareProcessCapturesMatchesProcessesByCommand(t *testing.T) {
	ab := build([]string{"a", "b"}, map[string]string{"a": "Ab12Cd", "b": "x9YzQ1"}, nil)
	ba := build([]string{"b", "a"}, map[string]string{"a": "Qq3rT7", "b": "mN0pL2"}, nil)
	optimized := build([]string{"b", "a"}, map[string]string{"a": "Qq3rT7", "b": "mN0pL2"}, map[string]string{"b": "-O2"})
	moved := build([]string{"b", "a"}, map[string]string{"a": "Qq3rT7", "b": "mN0pL2"}, nil)
	for i := range moved {
		if strings.HasPrefix(moved[i].Command, "as ") && strings.Contains(moved[i].Command, "a.o") {
			moved[i].ParentID = 2 // under gcc -c b.c
		}
	}
	capt := &sampledCapturer{trees: [][]ports.NormalizedProcess{ab, ba, optimized, moved}}
	call := caller(t, standard.Families(), &core.RegistryOptions{Capturer: capt})
	var caps []*core.Result
	for range 4 {
		caps = append(caps, call("capture_process_scenario", map[string]any{"executable": "/bin/sh"}))
	}
	type difference struct {
		Index       int
		Left, Right map[string]any
	}
	compare := func(l, r *core.Result) (status string, process *struct {
		Status     string
		Difference *difference
	}, fd map[string]any) {
		t.Helper()
		res := call("compare_process_captures", map[string]any{
			"left":  map[string]any{"kind": "retained-evidence", "evidence_id": string(l.Evidence.EvidenceID)},
			"right": map[string]any{"kind": "retained-evidence", "evidence_id": string(r.Evidence.EvidenceID)}})
		var out struct {
			Status     string
			Dimensions []struct {
				Dimension, Status string
				Difference        *difference
			}
			FirstDivergence map[string]any `json:"first_divergence"`
		}
		if err := json.Unmarshal(res.Evidence.NormalizedResult, &out); err != nil {
			t.Fatal(err)
		}
		for _, d := range out.Dimensions {
			if d.Dimension == "process" {
				process = &struct {
					Status     string
					Difference *difference
				}{d.Status, d.Difference}
			}
		}
		return out.Status, process, out.FirstDivergence
	}
	is := is.New(t)
	st, p, fd := compare(caps[0], caps[1])
	is.Equal(p.Status, "unknown") // the same build: only the residual unknown of a sampled tree
	is.True(p.Difference == nil)
	is.True(st != "changed")
	is.True(fd["status"] != "found")

	st, p, fd = compare(caps[0], caps[2])
	is.Equal(st, "changed")
	is.Equal(p.Status, "changed")
	is.Equal(fd["dimension"], "process")
	is.True(p.Difference != nil)
	is.Equal(p.Difference.Left["command"], "/usr/libexec/gcc/x86_64-linux-gnu/12/cc1 -quiet b.c -o <temporary-root>/ccXXXXXX.s")
	is.Equal(p.Difference.Right["command"], "/usr/libexec/gcc/x86_64-linux-gnu/12/cc1 -quiet b.c -O2 -o <temporary-root>/ccXXXXXX.s")

	st, p, _ = compare(caps[0], caps[3])
	is.Equal(st, "changed")
	is.Equal(p.Status, "changed")
	is.True(p.Difference != nil)
	is.Equal(p.Difference.Left["parents"], []any{"make -j2", "gcc -c a.c"})
	is.Equal(p.Difference.Right["parents"], []any{"make -j2", "gcc -c b.c"})
	is.Equal(p.Difference.Right["command"], "as --64 -o a.o <temporary-root>/ccXXXXXX.s")
}

// compareProcess compares two of the capturer's captures and returns the
// process dimension's status and reason.
func compareProcess(t *testing.T, call func(string, any) *core.Result, l, r *core.Result) (status, reason string) {
	t.Helper()
	res := call("compare_process_captures", map[string]any{
		"left":  map[string]any{"kind": "retained-evidence", "evidence_id": string(l.Evidence.EvidenceID)},
		"right": map[string]any{"kind": "retained-evidence", "evidence_id": string(r.Evidence.EvidenceID)}})
	var out struct {
		Dimensions []struct {
			Dimension, Status string
			Reason            *string
		}
	}
	if err := json.Unmarshal(res.Evidence.NormalizedResult, &out); err != nil {
		t.Fatal(err)
	}
	for _, d := range out.Dimensions {
		if d.Dimension == "process" {
			if d.Reason != nil {
				reason = *d.Reason
			}
			return d.Status, reason
		}
	}
	t.Fatal("no process dimension")
	return "", ""
}

// A child sampled between its fork and its exec carries its parent's
// command; the next look may find it gone, so that run records a second
// "gcc -c a.c" under gcc -c a.c where another run saw the assembler it
// became. Likewise a process whose arguments no look read (it was
// exiting) has only its name, in brackets. Neither is an observed
// difference: the process dimension is unknown, and says why. Before, the
// two builds' trees were "changed". A child under another command in the
// same place is still a change.
func TestCompareProcessCapturesForkCopyIsNoDifference(t *testing.T) {
	is := is.New(t)
	tmp := map[string]string{"a": "Ab12Cd", "b": "x9YzQ1"}
	whole := build([]string{"a", "b"}, tmp, nil)
	forked := build([]string{"a", "b"}, tmp, nil)
	unread := build([]string{"a", "b"}, tmp, nil)
	other := build([]string{"a", "b"}, tmp, nil)
	for i := range forked {
		if strings.HasPrefix(forked[i].Command, "as ") && strings.Contains(forked[i].Command, "a.o") {
			forked[i].Command = "gcc -c a.c" // its parent's: sampled before its exec
			unread[i].Command = "[as]"
			other[i].Command = "ld -r a.o"
		}
	}
	capt := &sampledCapturer{trees: [][]ports.NormalizedProcess{whole, forked, unread, other}}
	call := caller(t, standard.Families(), &core.RegistryOptions{Capturer: capt})
	var caps []*core.Result
	for range 4 {
		caps = append(caps, call("capture_process_scenario", map[string]any{"executable": "/bin/sh"}))
	}
	st, why := compareProcess(t, call, caps[0], caps[1])
	is.Equal(st, "unknown")
	is.True(strings.Contains(why, "between its fork and its exec"))
	st, _ = compareProcess(t, call, caps[1], caps[0])
	is.Equal(st, "unknown")
	st, why = compareProcess(t, call, caps[2], caps[0])
	is.Equal(st, "unknown")
	is.True(strings.Contains(why, "arguments unread"))
	st, _ = compareProcess(t, call, caps[0], caps[3])
	is.Equal(st, "changed")
}

// Two runs of make -j2 whose samples each missed another assembler (a.o's
// in one, b.o's in the other) hold no process the other holds elsewhere or
// in its place: each lacks what it did not see, which is unknown. Before,
// only a side whose processes were all among the other's was an absence,
// so such pairs (4 of 15 in six captured builds) were "changed".
func TestCompareProcessCapturesEachSideMissedAnother(t *testing.T) {
	is := is.New(t)
	tmp := map[string]string{"a": "Ab12Cd", "b": "x9YzQ1"}
	without := func(obj string) []ports.NormalizedProcess {
		var out []ports.NormalizedProcess
		for _, p := range build([]string{"a", "b"}, tmp, nil) {
			if !strings.HasPrefix(p.Command, "as --64 -o "+obj+" ") {
				out = append(out, p)
			}
		}
		return out
	}
	capt := &sampledCapturer{trees: [][]ports.NormalizedProcess{without("a.o"), without("b.o")}}
	call := caller(t, standard.Families(), &core.RegistryOptions{Capturer: capt})
	l := call("capture_process_scenario", map[string]any{"executable": "/bin/sh"})
	r := call("capture_process_scenario", map[string]any{"executable": "/bin/sh"})
	st, why := compareProcess(t, call, l, r)
	is.Equal(st, "unknown")
	is.True(strings.Contains(why, "between two of its samples"))
}

// A temporary name whose six drawn characters are all small letters (about
// one mkstemp name in 180) is kept by the name rule, as a word is; it pairs
// with the other capture's name when that one is plainly mkstemp's, in
// either direction: the other side shows the program draws the name there.
// Two words, two all-small-letter draws, or a name two processes could
// pair with, still differ. Before, every such pair was "changed", and so
// were two all-small-letter draws where the program plainly draws names,
// and two of Go's os.CreateTemp names of different lengths.
func TestCompareProcessCapturesPairsSmallLetterTempNames(t *testing.T) {
	tree := func(cmds ...string) []ports.NormalizedProcess {
		out := []ports.NormalizedProcess{{ID: 1, GroupID: 1, SessionID: 1, Command: "<executable> build"}}
		for _, c := range cmds {
			out = append(out, ports.NormalizedProcess{ID: len(out) + 1, ParentID: 1, GroupID: 1, SessionID: 1, Command: c})
		}
		return out
	}
	cases := []struct {
		name        string
		left, right []ports.NormalizedProcess
		want        string
	}{
		{"small letters, then mkstemp's", tree("sort -o /tmp/sortqwerty.txt in"), tree("sort -o /tmp/sortA1b2C3.txt in"), "unknown"},
		{"mkstemp's, then small letters", tree("sort -o /tmp/sortA1b2C3.txt in"), tree("sort -o /tmp/sortqwerty.txt in"), "unknown"},
		{"in the temporary root", tree("ld -o <temporary-root>/linkzzzqwe a.o"), tree("ld -o <temporary-root>/link9QzX1k a.o"), "unknown"},
		{"two words", tree("sort -o /tmp/output.txt in"), tree("sort -o /tmp/result.txt in"), "changed"},
		{"two draws of small letters", tree("sort -o /tmp/sortqwerty.txt in"), tree("sort -o /tmp/sortasdfgh.txt in"), "changed"},
		{"another program", tree("sort -o /tmp/sortqwerty.txt in"), tree("uniq -o /tmp/sortA1b2C3.txt in"), "changed"},
		{"ambiguous", tree("cat /tmp/fooqwerty", "cat /tmp/fooasdfgh"), tree("cat /tmp/fooA1b2C3", "cat /tmp/barqwerty"), "changed"},
		// Two draws of small letters pair where another name at the same
		// place is plainly drawn; in another directory, or after another
		// stem, it proves nothing.
		{"two draws of small letters at a drawn place", tree("sort -o /tmp/sortqwerty.txt in", "cat /tmp/sortA1b2C3.txt"),
			tree("sort -o /tmp/sortasdfgh.txt in", "cat /tmp/sortZ9y8X7.txt"), "unknown"},
		{"drawn in another directory", tree("sort -o /tmp/sortqwerty.txt in", "cat /var/tmp/sortA1b2C3.txt"),
			tree("sort -o /tmp/sortasdfgh.txt in", "cat /var/tmp/sortZ9y8X7.txt"), "changed"},
		{"drawn after another stem", tree("sort -o /tmp/sortqwerty.txt in", "cat /tmp/uniqA1b2C3.txt"),
			tree("sort -o /tmp/sortasdfgh.txt in", "cat /tmp/uniqZ9y8X7.txt"), "changed"},
		// Go's os.CreateTemp draws a decimal number of 1 to 10 digits.
		{"Go's digits", tree("app -o /tmp/app-3917265310.json"), tree("app -o /tmp/app-48213307.json"), "unknown"},
	}
	var trees [][]ports.NormalizedProcess
	for _, c := range cases {
		trees = append(trees, c.left, c.right)
	}
	capt := &sampledCapturer{trees: trees}
	call := caller(t, standard.Families(), &core.RegistryOptions{Capturer: capt})
	for _, c := range cases {
		l := call("capture_process_scenario", map[string]any{"executable": "/bin/sh"})
		r := call("capture_process_scenario", map[string]any{"executable": "/bin/sh"})
		st, why := compareProcess(t, call, l, r)
		if st != c.want {
			t.Errorf("%s: process %s (%s), want %s", c.name, st, why, c.want)
		}
	}
}
