package native_test

import (
	"testing"

	"github.com/matryer/is"
)

// TestDiscoveryDecodesEachByteOnce: on stripped builds without unwind
// tables every function start after the first is found in the code, and
// each new start splits a range that was already decoded. Discovery must
// cut the new ranges from that decoding rather than sweep them again: the
// bytes swept stay within the code bytes plus the first instructions of
// each function (decoded again for its first boundaries and the thunk
// test). Sweeping a split range again, as discovery once did, costs about
// twice the code here.
func TestDiscoveryDecodesEachByteOnce(t *testing.T) {
	codeFixtures()
	for _, name := range []string{"gen-nounwind-stripped", "gen-O0-stripped", "code-nounwind-stripped"} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			path, err := buildFixture(t.Context(), name)
			if err != nil {
				t.Skipf("fixture %s: %v", name, err)
			}
			st, err := openAnalysis(t, path).Discovery(t.Context())
			is.NoErr(err)
			is.True(st.Complete)
			is.True(st.Functions > 10)
			t.Logf("%s: %d functions in %d rounds, %d bytes decoded for %d bytes of code (%.2f)",
				name, st.Functions, st.Rounds, st.DecodedBytes, st.CodeBytes, float64(st.DecodedBytes)/float64(st.CodeBytes))
			is.True(st.DecodedBytes <= st.CodeBytes+int64(16*st.Functions)) // each byte swept once, plus the first instructions of each function
		})
	}
}
