package jcs_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core/internal/jcs"
)

func TestAppendFloat(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-1.5, "-1.5"},
		{1e20, "100000000000000000000"}, {1e21, "1e+21"}, {-1e21, "-1e+21"},
		{1e-6, "0.000001"}, {1e-7, "1e-7"}, {-1.25e-9, "-1.25e-9"}, {1.5e-10, "1.5e-10"},
		{5e-324, "5e-324"}, {math.MaxFloat64, "1.7976931348623157e+308"},
		{333333333.33333329, "333333333.3333333"}, {4.5, "4.5"}, {2e-3, "0.002"},
	} {
		t.Run(c.want, func(t *testing.T) {
			is := is.New(t)
			got, err := jcs.AppendFloat([]byte("x"), c.f)
			is.NoErr(err)
			is.Equal(string(got), "x"+c.want) // appended after what dst held
		})
	}
	is := is.New(t)
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, err := jcs.AppendFloat(nil, f)
		is.True(err != nil)
	}
}

func TestAppendNumberAndIntegers(t *testing.T) {
	is := is.New(t)
	for in, want := range map[string]string{
		"9007199254740992": "9007199254740992", "-9007199254740992": "-9007199254740992",
		"9007199254740993": "9007199254740992", "1.50": "1.5", "-0": "0", "1E3": "1000",
		"123456789012345678901": "123456789012345680000", "1e-7": "1e-7",
	} {
		got, err := jcs.AppendNumber(nil, in)
		is.NoErr(err)
		is.Equal(string(got), want)
	}
	_, err := jcs.AppendNumber(nil, "1e400")
	is.True(err != nil)
	b, err := jcs.AppendInt(nil, math.MaxInt64)
	is.NoErr(err)
	is.Equal(string(b), "9223372036854776000")
	b, err = jcs.AppendInt(nil, -(1 << 53))
	is.NoErr(err)
	is.Equal(string(b), "-9007199254740992")
	b, err = jcs.AppendUint(nil, math.MaxUint64)
	is.NoErr(err)
	is.Equal(string(b), "18446744073709552000")
	b, err = jcs.AppendUint(nil, 1<<53)
	is.NoErr(err)
	is.Equal(string(b), "9007199254740992")
}

func TestAppendString(t *testing.T) {
	is := is.New(t)
	got := jcs.AppendString(nil, "<a>&\u2028\"\\\b\f\n\r\t\x01\x1f\x7fé\xff😀")
	is.Equal(string(got), `"<a>&`+"\u2028"+`\"\\\b\f\n\r\t\u0001\u001f`+"\x7fé\uFFFD😀"+`"`)
}

func TestCompareKeysUTF16Order(t *testing.T) {
	is := is.New(t)
	// RFC 8785 §3.2.3: U+1F600 (a surrogate pair, D83D DE00) sorts before
	// U+FB33 although its code point is larger.
	keys := []string{"\u20ac", "\r", "\ufb33", "1", "\U0001F600", "\u0080", "\u00f6", "", "10", "1\u00f6"}
	slices.SortFunc(keys, jcs.CompareKeys)
	is.Equal(keys, []string{"", "\r", "1", "10", "1\u00f6", "\u0080", "\u00f6", "\u20ac", "\U0001F600", "\ufb33"})
	is.True(jcs.CompareKeys("a", "a") == 0)
}

func TestMembers(t *testing.T) {
	is := is.New(t)
	var got []string
	err := jcs.Members([]byte(` {"b": [ 2, 1.0 ], "a":{"y":1,"x":2}, "\u00e9":"\u0041", "b":null} `), func(k string, v []byte) error {
		got = append(got, k+"="+string(v))
		return nil
	})
	is.NoErr(err)
	// Input order, duplicates included, each value canonical.
	is.Equal(got, []string{`b=[2,1]`, `a={"x":2,"y":1}`, `é="A"`, `b=null`})

	is.NoErr(jcs.Members([]byte(`{}`), func(string, []byte) error { t.Fatal("no member"); return nil }))
	for _, bad := range []string{`[]`, `{"a":1} 2`, `{"a":1,}`, `{"a" 1}`, `{"a":01}`, `{"a":1`, `{a:1}`, ``, `{"a":` + strings.Repeat("[", jcs.MaxDepth+1) + strings.Repeat("]", jcs.MaxDepth+1) + `}`} {
		err := jcs.Members([]byte(bad), func(string, []byte) error { return nil })
		is.True(err != nil) // refused
	}
	stop := jcs.Members([]byte(`{"a":1,"b":2}`), func(k string, _ []byte) error {
		if k == "b" {
			return errStop
		}
		return nil
	})
	is.Equal(stop, errStop) // visit's error comes back as it is
}

var errStop = stopErr{}

type stopErr struct{}

func (stopErr) Error() string { return "stop" }

func TestAppendRawDepthLimit(t *testing.T) {
	is := is.New(t)
	deep := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	_, err := jcs.AppendRaw(nil, deep(jcs.MaxDepth+1))
	is.NoErr(err)
	_, err = jcs.AppendRaw(nil, deep(jcs.MaxDepth+2))
	is.True(err != nil)
}
