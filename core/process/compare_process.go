package process

import (
	"slices"
	"strings"
)

// Placeholders of a process item's relations (processItems).
const (
	relSelf       = "<self>"        // the process leads its own group or session
	relOutside    = "<outside>"     // outside the capture (rea itself, init)
	relNotSampled = "<not-sampled>" // a process of the capture never sampled
)

// processItems is the sampled process tree as a multiset, matched by
// command rather than by the order processes started: the normalized ids
// count processes in first-seen order, so two runs of `make -j2` that
// start their jobs in another order number them differently. Each item
// names its relations by command instead of id: parents (the commands
// from the capture's root down to its parent), and the leaders of its
// group and session. Commands have their temporary names normalized
// (tempNames). Items are sorted by that form; "id" is the process's id in
// the capture's tree, reported to find it there and not compared.
func processItems(d *captureDoc) []map[string]any {
	tree := d.Processes.Tree
	byID := make(map[string]map[string]any, len(tree))
	for _, p := range tree {
		if k := canon(p["id"]); byID[k] == nil {
			byID[k] = p
		}
	}
	command := func(p map[string]any) string {
		s, _ := p["command"].(string)
		return tempNames(s)
	}
	outside := func(id any) bool { return id == nil || canon(id) == "0" }
	relation := func(p map[string]any, key string) string {
		id := p[key]
		switch l := byID[canon(id)]; {
		case outside(id):
			return relOutside
		case canon(id) == canon(p["id"]):
			return relSelf
		case l == nil:
			return relNotSampled
		default:
			return command(l)
		}
	}
	out := make([]map[string]any, 0, len(tree))
	for _, p := range tree {
		var parents []string
		seen := map[string]bool{canon(p["id"]): true}
		for id := p["parent_id"]; !outside(id); {
			k := canon(id)
			q := byID[k]
			if q == nil {
				parents = append(parents, relNotSampled)
				break
			}
			if seen[k] { // a cycle: no tree the engine writes has one
				break
			}
			seen[k] = true
			parents = append(parents, command(q))
			id = q["parent_id"]
		}
		slices.Reverse(parents)
		out = append(out, map[string]any{"at_ms": nil, "id": p["id"], "command": command(p), "parents": parents,
			"group_leader": relation(p, "group_id"), "session_leader": relation(p, "session_id")})
	}
	sortKey := make([]string, len(out))
	for i, it := range out {
		sortKey[i] = canon(withoutKeys(it, "id"))
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(sortKey[a], sortKey[b]) })
	sorted := make([]map[string]any, len(out))
	for i, j := range idx {
		sorted[i] = out[j]
	}
	return sorted
}

// processPartlySeen tells a process item that may stand for another the
// other run saw: one whose command is its parent's (a child sampled
// between its fork and its exec, which another run may have seen as the
// program it became, or never seen; a process that forks without an exec,
// as a server's workers do, is one too, and its absence on one side is
// unknown, as any sampled absence is), and one whose arguments no look
// could read (the engine writes its command name in brackets, as ps does:
// it was exiting, and another run read its whole command).
func processPartlySeen(p map[string]any) bool {
	parents, _ := p["parents"].([]string)
	cmd, _ := p["command"].(string)
	return len(parents) > 0 && parents[len(parents)-1] == cmd ||
		len(cmd) > 2 && cmd[0] == '[' && cmd[len(cmd)-1] == ']'
}

// processPlace is where a process item was: its parents' commands and
// its group and session leaders.
func processPlace(p map[string]any) string {
	return canon([]any{p["parents"], p["group_leader"], p["session_leader"]})
}

// processCompared is process items as compared: without their ids.
func processCompared(items []map[string]any) []map[string]any {
	out := make([]map[string]any, len(items))
	for i, it := range items {
		out[i] = withoutKeys(it, "id")
	}
	return out
}

// withoutKeys is a copy of it without keys (nil for nil).
func withoutKeys(it map[string]any, keys ...string) map[string]any {
	if it == nil {
		return nil
	}
	c := make(map[string]any, len(it))
	for k, v := range it {
		if !slices.Contains(keys, k) {
			c[k] = v
		}
	}
	return c
}

// firstUnmatched finds the first difference of two unordered dimensions'
// items: the first item (in the items' order) of each side that the other
// side does not hold as often, compared in their compared forms (lc, rc).
// index is the left one's position, or the right one's when every left
// item is matched; a side whose items are all matched gives nil.
func firstUnmatched(li, ri, lc, rc []map[string]any) (index int, a, b map[string]any, ok bool) {
	count := func(items []map[string]any) map[string]int {
		n := map[string]int{}
		for _, it := range items {
			n[canon(it)]++
		}
		return n
	}
	first := func(compared []map[string]any, other map[string]int) int {
		for i, it := range compared {
			k := canon(it)
			if other[k] == 0 {
				return i
			}
			other[k]--
		}
		return -1
	}
	il := first(lc, count(rc))
	ir := first(rc, count(lc))
	if il < 0 && ir < 0 {
		return 0, nil, nil, false
	}
	index = il
	if il >= 0 {
		a = li[il]
	} else {
		index = ir
	}
	if ir >= 0 {
		b = ri[ir]
	}
	return index, a, b, true
}

// tempNames rewrites the names of temporary files in a process command
// as mkstemp's template: the last six characters of the stem (the name
// before its first '.') of a file directly in a temporary directory (the
// capture's <temporary-root>, /tmp, /var/tmp, /dev/shm) become XXXXXX
// when they are letters and digits, as mkstemp draws them. gcc names its
// intermediate files so (cc1 -o <temporary-root>/ccA1b2C3.s), anew for
// each run; the temporary root itself is normalized by the engine. A
// shorter stem is kept, and so is a word (mkstempTail), so a program given
// /tmp/a.txt or /tmp/b.txt, or /tmp/output.txt or /tmp/result.txt, still
// differs; a drawn name of six small letters, which looks like a word, is
// paired across the two captures instead (pairTempNames).
//
// A stem whose last six characters are digits loses its whole run of
// trailing digits instead: Go's os.CreateTemp and os.MkdirTemp draw a
// decimal number of 1 to 10 digits (go-build3917265310, app-48213307), so
// the digits before the last six differ from run to run too.
func tempNames(s string) string {
	return eachTempName(s, func(_, stem, rest string) string {
		if len(stem) < 6 || !mkstempTail(stem) {
			return stem + rest
		}
		cut := len(stem) - 6
		if strings.IndexFunc(stem[cut:], func(r rune) bool { return r < '0' || r > '9' }) < 0 {
			for cut > 0 && '0' <= stem[cut-1] && stem[cut-1] <= '9' {
				cut--
			}
		}
		return stem[:cut] + "XXXXXX" + rest
	})
}

// eachTempName rewrites each name of a file directly in a temporary
// directory in s with f, given the directory, the name's stem (before its
// first '.') and the rest.
func eachTempName(s string, f func(dir, stem, rest string) string) string {
	if !strings.Contains(s, "/") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		dir := ""
		for _, d := range []string{"<temporary-root>/", "/tmp/", "/var/tmp/", "/dev/shm/"} {
			if strings.HasPrefix(s[i:], d) && (d[0] == '<' || i == 0 || !isPathByte(s[i-1])) {
				dir = d
				break
			}
		}
		if dir == "" {
			b.WriteByte(s[i])
			i++
			continue
		}
		b.WriteString(dir)
		i += len(dir)
		j := i
		for j < len(s) && isPathByte(s[j]) && s[j] != '/' {
			j++
		}
		name := s[i:j]
		stem := name
		if k := strings.IndexByte(name, '.'); k >= 0 {
			stem = name[:k]
		}
		b.WriteString(f(dir, stem, name[len(stem):]))
		i = j
	}
	return b.String()
}

// pairTempNames pairs a process one side holds alone with one the other
// holds alone when they differ only in the six-character tails of
// temporary names that tempNames kept (six small letters, as a word is,
// and as about one mkstemp name in 180 is), and at each place where they
// differ one side's name is mkstemp's (tempNames wrote it XXXXXX): that
// side shows the program draws the name there, so the other's six small
// letters are a draw too. A pair must be unambiguous: each the other's
// only such partner. Both are then written with XXXXXX and the lists
// sorted again. Two words (/tmp/output.txt, /tmp/result.txt) never pair.
// Two draws of small letters only (about one pair in 33,000) pair when
// another name at the same place (directory, the stem before its six
// drawn characters, and what follows them) in either capture is plainly
// mkstemp's: the program draws names there.
func pairTempNames(l, r []map[string]any) ([]map[string]any, []map[string]any) {
	type tail struct{ drawn, place string }
	type loose struct {
		key   string
		tails []tail
	}
	// places calls f with each six-character tail of a temporary name in
	// its commands and the place it is at: the directory, the stem
	// before the tail, and the rest.
	places := func(it map[string]any, f func(stem, rest string, t tail) string) map[string]any {
		rewrite := func(s string) string {
			return eachTempName(s, func(dir, stem, rest string) string {
				if len(stem) < 6 || strings.IndexFunc(stem[len(stem)-6:], func(r rune) bool { return !isAlnum(r) }) >= 0 {
					return stem + rest
				}
				return f(stem, rest, tail{stem[len(stem)-6:], dir + stem[:len(stem)-6] + "\x00" + rest})
			})
		}
		c := make(map[string]any, len(it))
		for k, v := range it {
			c[k] = v
		}
		for _, k := range []string{"command", "parents", "group_leader", "session_leader"} {
			switch v := it[k].(type) {
			case string:
				c[k] = rewrite(v)
			case []string:
				ps := make([]string, len(v))
				for i, p := range v {
					ps[i] = rewrite(p)
				}
				c[k] = ps
			}
		}
		return c
	}
	drawnAt := map[string]bool{}
	for _, side := range [][]map[string]any{l, r} {
		for _, it := range side {
			places(it, func(stem, rest string, t tail) string {
				if t.drawn == "XXXXXX" {
					drawnAt[t.place] = true
				}
				return stem + rest
			})
		}
	}
	looseOf := func(it map[string]any) (map[string]any, loose) {
		var tails []tail
		c := places(it, func(stem, rest string, t tail) string {
			tails = append(tails, t)
			return stem[:len(stem)-6] + "XXXXXX" + rest
		})
		return c, loose{canon(withoutKeys(c, "id")), tails}
	}
	compatible := func(a, b []tail) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i].drawn != b[i].drawn && a[i].drawn != "XXXXXX" && b[i].drawn != "XXXXXX" && !drawnAt[a[i].place] {
				return false
			}
		}
		return true
	}
	alone := func(a, b []map[string]any) []int {
		n := map[string]int{}
		for _, it := range b {
			n[canon(withoutKeys(it, "id"))]++
		}
		var out []int
		for i, it := range a {
			if k := canon(withoutKeys(it, "id")); n[k] > 0 {
				n[k]--
			} else {
				out = append(out, i)
			}
		}
		return out
	}
	la, ra := alone(l, r), alone(r, l)
	if len(la) == 0 || len(ra) == 0 {
		return l, r
	}
	lf, rf := make([]map[string]any, len(la)), make([]map[string]any, len(ra))
	ll, rl := make([]loose, len(la)), make([]loose, len(ra))
	for x, i := range la {
		lf[x], ll[x] = looseOf(l[i])
	}
	for y, j := range ra {
		rf[y], rl[y] = looseOf(r[j])
	}
	partners := func(a loose, bs []loose) []int {
		var out []int
		for y, b := range bs {
			if a.key == b.key && compatible(a.tails, b.tails) {
				out = append(out, y)
			}
		}
		return out
	}
	paired := false
	l, r = slices.Clone(l), slices.Clone(r)
	for x := range la {
		ps := partners(ll[x], rl)
		if len(ps) != 1 || len(partners(rl[ps[0]], ll)) != 1 {
			continue
		}
		l[la[x]], r[ra[ps[0]]] = lf[x], rf[ps[0]]
		paired = true
	}
	if paired {
		for _, side := range [][]map[string]any{l, r} {
			slices.SortStableFunc(side, func(a, b map[string]any) int {
				return strings.Compare(canon(withoutKeys(a, "id")), canon(withoutKeys(b, "id")))
			})
		}
	}
	return l, r
}

// mkstempTail is whether stem's last six characters look drawn by
// mkstemp: letters and digits, with a digit or a capital among them (a
// word such as output or result has neither), or any six after gcc's cc
// or tmp (all six are small letters in about one name in 180).
func mkstempTail(stem string) bool {
	tail, prefix := stem[len(stem)-6:], stem[:len(stem)-6]
	if strings.IndexFunc(tail, func(r rune) bool { return !isAlnum(r) }) >= 0 {
		return false
	}
	return prefix == "cc" || prefix == "tmp" || strings.IndexFunc(tail, func(r rune) bool { return r < 'a' }) >= 0
}

func isAlnum(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

// isPathByte reports whether c may be part of a path in a command line (a
// space, quote or separator ends one).
func isPathByte(c byte) bool {
	return isAlnum(rune(c)) || c == '.' || c == '_' || c == '-' || c == '/' || c == '+' || c == '~' || c == '@' || c == '%' || c >= 0x80
}
