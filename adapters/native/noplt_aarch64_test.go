package native_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"rea/ports"
)

// An AArch64 -fno-plt call loads the import's address from its GOT slot and
// calls through the register (adrp x8, page; ldr x8, [x8, #off]; ...;
// blr x8, often with other instructions between): the call is a call to the
// slot, named after the import. The oracle follows the same registers
// through aarch64-linux-gnu-objdump's text and names the slots from the
// relocations readelf lists.
func TestELFNoPLTImportCallsArm64(t *testing.T) {
	path := fixturePath(t, "c-arm64-noplt")
	needTool(t, "aarch64-linux-gnu-objdump")
	out, err := exec.Command("aarch64-linux-gnu-objdump", "-d", "--no-show-raw-insn", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	slotNames := gotImportSlots(t, path)
	// Straight-line register tracking, as objdump prints the instructions.
	insn := regexp.MustCompile(`^\s*([0-9a-f]+):\s+(\S+)\s+(.*)$`)
	adrp := regexp.MustCompile(`^(x\d+), ([0-9a-f]+)`)
	ldr := regexp.MustCompile(`^(x\d+), \[(x\d+), #(\d+)\]`)
	blr := regexp.MustCompile(`^(x\d+)`)
	dest := regexp.MustCompile(`^([xw]\d+)`)
	pages, loaded := map[string]uint64{}, map[string]uint64{}
	want := map[uint64]uint64{} // call site -> slot
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := insn.FindStringSubmatch(sc.Text())
		if m == nil {
			pages, loaded = map[string]uint64{}, map[string]uint64{}
			continue
		}
		site, _ := strconv.ParseUint(m[1], 16, 64)
		switch op, args := m[2], m[3]; {
		case op == "adrp" && adrp.MatchString(args):
			a := adrp.FindStringSubmatch(args)
			pages[a[1]], _ = strconv.ParseUint(a[2], 16, 64)
			delete(loaded, a[1])
		case op == "ldr" && ldr.MatchString(args):
			a := ldr.FindStringSubmatch(args)
			page, ok := pages[a[2]]
			delete(pages, a[1])
			delete(loaded, a[1])
			if off, _ := strconv.ParseUint(a[3], 10, 64); ok {
				loaded[a[1]] = page + off
			}
		case op == "blr" && blr.MatchString(args):
			if slot, ok := loaded[blr.FindStringSubmatch(args)[1]]; ok && slotNames[slot] != "" {
				want[site] = slot
			}
			pages, loaded = map[string]uint64{}, map[string]uint64{}
		case op[0] == 'b' || op == "ret" || op == "cbz" || op == "cbnz" || op == "tbz" || op == "tbnz":
			pages, loaded = map[string]uint64{}, map[string]uint64{}
		default:
			if r := dest.FindStringSubmatch(args); r != nil && op[0] != 's' { // not a store: it writes its first register
				reg := "x" + r[1][1:]
				delete(pages, reg)
				delete(loaded, reg)
			}
		}
	}
	if len(want) < 3 {
		t.Fatalf("objdump shows %d calls through the GOT", len(want))
	}
	a := openAnalysis(t, path)
	names, err := a.Names(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	imports := map[uint64]string{}
	for _, n := range names {
		if n.Kind == "import" {
			imports[n.Address] = n.Name
		}
	}
	for site, slot := range want {
		if imports[slot] != slotNames[slot] {
			t.Errorf("GOT slot %#x of %s is named %q", slot, slotNames[slot], imports[slot])
		}
		from, err := a.ReferencesFrom(t.Context(), site, site+1)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(from, func(r ports.Reference) bool {
			return r.Kind == ports.RefCall && !r.Unresolved && r.To == slot && r.Slot == slot
		}) {
			t.Errorf("blr at %#x through %s's slot %#x: references %+v", site, slotNames[slot], slot, from)
		}
	}
}
