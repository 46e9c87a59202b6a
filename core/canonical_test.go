package core_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gowebpki/jcs"
	"github.com/matryer/is"

	"rea/core"
)

// RFC 8785 §3.2.2: the example input and its canonical form.
const rfcInput = `{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`

const rfcOutput = `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`

func TestCanonicalRFC8785Example(t *testing.T) {
	is := is.New(t)
	got, err := core.Canonicalize([]byte(rfcInput))
	is.NoErr(err)
	is.Equal(string(got), rfcOutput)
}

// RFC 8785 §3.2.3: property sorting by UTF-16 code units.
func TestCanonicalSortingRFC8785(t *testing.T) {
	is := is.New(t)
	in := `{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`
	got, err := core.Canonicalize([]byte(in))
	is.NoErr(err)
	var keys []string
	dec := json.NewDecoder(stringsReader(string(got)))
	tok, _ := dec.Token()
	is.Equal(tok, json.Delim('{'))
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var v any
		is.NoErr(dec.Decode(&v))
	}
	is.Equal(keys, []string{"\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001F600", "\ufb33"})
}

// RFC 8785 Appendix B: IEEE 754 values and their ES6 serialisations.
func TestCanonicalNumbersAppendixB(t *testing.T) {
	cases := []struct {
		bits uint64
		want string
	}{
		{0x0000000000000000, "0"},
		{0x8000000000000000, "0"},
		{0x0000000000000001, "5e-324"},
		{0x8000000000000001, "-5e-324"},
		{0x7fefffffffffffff, "1.7976931348623157e+308"},
		{0xffefffffffffffff, "-1.7976931348623157e+308"},
		{0x4340000000000000, "9007199254740992"},
		{0xc340000000000000, "-9007199254740992"},
		{0x4430000000000000, "295147905179352830000"},
		{0x44b52d02c7e14af5, "9.999999999999997e+22"},
		{0x44b52d02c7e14af6, "1e+23"},
		{0x44b52d02c7e14af7, "1.0000000000000001e+23"},
		{0x444b1ae4d6e2ef4e, "999999999999999700000"},
		{0x444b1ae4d6e2ef4f, "999999999999999900000"},
		{0x444b1ae4d6e2ef50, "1e+21"},
		{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
		{0x3eb0c6f7a0b5ed8d, "0.000001"},
		{0x41b3de4355555553, "333333333.3333332"},
		{0x41b3de4355555554, "333333333.33333325"},
		{0x41b3de4355555555, "333333333.3333333"},
		{0x41b3de4355555556, "333333333.3333334"},
		{0x41b3de4355555557, "333333333.33333343"},
		{0xbecbf647612f3696, "-0.0000033333333333333333"},
		{0x43143ff3c1cb0959, "1424953923781206.2"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			is := is.New(t)
			got, err := core.AppendCanonical(nil, math.Float64frombits(c.bits))
			is.NoErr(err)
			is.Equal(string(got), c.want)
		})
	}
}

// The kernel's own ES6 number formatter must agree with an independent
// RFC 8785 implementation's: on doubles drawn across the whole bit space,
// on every power of ten and around the 1e-6 and 1e21 notation switches.
func TestCanonicalNumbersMatchIndependentFormatter(t *testing.T) {
	check := func(f float64) {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return
		}
		want, err := jcs.NumberToJSON(f)
		if err != nil {
			t.Fatalf("%x: %v", math.Float64bits(f), err)
		}
		got, err := core.AppendCanonical(nil, f)
		if err != nil || string(got) != want {
			t.Fatalf("%x (%g): got %s (%v), want %s", math.Float64bits(f), f, got, err, want)
		}
	}
	r := rand.New(rand.NewPCG(8785, 2026))
	for range 200_000 {
		check(math.Float64frombits(r.Uint64()))
		check(r.NormFloat64() * math.Pow(10, float64(r.IntN(60)-30)))
	}
	for e := -324; e <= 308; e++ {
		p := math.Pow(10, float64(e))
		for _, f := range []float64{p, -p, math.Nextafter(p, 0), math.Nextafter(p, math.Inf(1)), 1.5 * p, 9.999999999999999 * p} {
			check(f)
		}
	}
}

func FuzzCanonicalNumber(f *testing.F) {
	for _, v := range []float64{0, 1e21, 1e-7, 5e-324, 333333333.33333329} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		want, _ := jcs.NumberToJSON(v)
		got, err := core.AppendCanonical(nil, v)
		if err != nil || string(got) != want {
			t.Fatalf("%x: got %s (%v), want %s", math.Float64bits(v), got, err, want)
		}
	})
}

func TestCanonicalStringsNoHTMLEscape(t *testing.T) {
	is := is.New(t)
	got, err := core.CanonicalJSON(map[string]any{"s": "<a>&\u2028\u2029\x01é"})
	is.NoErr(err)
	is.Equal(string(got), "{\"s\":\"<a>&\u2028\u2029\\u0001é\"}")
}

func TestCanonicalRejects(t *testing.T) {
	for _, in := range []string{`{"a":1} x`, `{"a":`, `NaN`} {
		t.Run(in, func(t *testing.T) {
			is := is.New(t)
			_, err := core.Canonicalize([]byte(in))
			is.True(err != nil)
		})
	}
	is := is.New(t)
	_, err := core.AppendCanonical(nil, math.Inf(1))
	is.True(err != nil)
}

func TestHex(t *testing.T) {
	is := is.New(t)
	is.Equal(core.Hex(0), "0x0")
	is.Equal(core.Hex(1<<63), "0x8000000000000000")
	v, err := core.ParseHex("0xFFFFFFFFFFFFFFFF")
	is.NoErr(err)
	is.Equal(v, uint64(math.MaxUint64))
	_, err = core.ParseHex("0xzz")
	is.True(err != nil)
}

// FuzzCanonicalize checks rea's encoder against an independent RFC 8785
// implementation on arbitrary JSON.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{rfcInput, `{"a":[1,2.5,-0,1e400]}`, `"\u2028"`, `{"b":{"a":null}}`, `[1e21,1e-7,123456789012345678]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		ours, err := core.Canonicalize(in)
		if err != nil {
			return
		}
		theirs, err := jcs.Transform(in)
		if err != nil {
			return
		}
		if string(ours) != string(theirs) {
			t.Fatalf("canonical forms differ for %q:\nrea: %s\njcs: %s", in, ours, theirs)
		}
	})
}
