package diff

import (
	"testing"

	"github.com/matryer/is"
)

// TestPagedSectionSaysHowToGetItAll: compare_functions on two records of
// a 109-instruction handler made with include_assembly left instructions
// and constants unknown because "the record holds 100 of 109 assembly
// items (a page)", and nothing said which argument records them all. Now
// the reason names analyze_function's limit, or says no limit can.
func TestPagedSectionSaysHowToGetItAll(t *testing.T) {
	is := is.New(t)
	page := func(n, total int) *afColl[int] {
		return &afColl[int]{Items: make([]int, n), Total: &total}
	}
	ok, why := page(100, 109).complete("assembly")
	is.True(!ok)
	is.Equal(why, "the record holds 100 of 109 assembly items (a page; analyze_function with limit 109 or more records them all)")
	ok, why = page(100, 731).complete("assembly")
	is.True(!ok)
	is.Equal(why, "the record holds 100 of 731 assembly items (a page; more than analyze_function's largest limit, 500, records)")
	ok, _ = page(109, 109).complete("assembly")
	is.True(ok)
}
