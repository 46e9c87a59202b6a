package native

import "testing"

// The filter in front of the name map must never reject an added address
// (that would drop a name from the text), and must reject most others
// (or it saves nothing).
func TestAddrFilterKeepsEveryAddedAddress(t *testing.T) {
	for _, n := range []int{0, 1, 3, 1000, 100000} {
		f := newAddrFilter(n)
		added := map[uint64]bool{}
		x := uint64(0x401000)
		for i := range n {
			x += uint64(16 + (i*7919)%97) // function-like spacing, some unaligned
			f.add(x)
			added[x] = true
		}
		for a := range added {
			if !f.mayHave(a) {
				t.Fatalf("n=%d: added address %#x rejected", n, a)
			}
		}
		if n == 0 {
			continue
		}
		passed, tried := 0, 0
		for a := uint64(0x400000); tried < 200000; a += 3 {
			if added[a] {
				continue
			}
			tried++
			if f.mayHave(a) {
				passed++
			}
		}
		if n >= 1000 && passed > tried/20 {
			t.Errorf("n=%d: %d of %d absent addresses passed the filter", n, passed, tried)
		}
	}
	var zero addrFilter
	if zero.mayHave(0) {
		t.Error("an empty filter passed an address")
	}
}
