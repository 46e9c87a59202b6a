package cli

import "testing"

// A traced call's arguments on one line: named where a parameter is
// known, a string argument's text in place of its address (cut at 60
// characters), an unreadable one said so, a filled buffer's text at the
// return after its address, and the first three registers with an
// ellipsis when nothing names any.
func TestTraceArgs(t *testing.T) {
	str := func(s string) *string { return &s }
	type sv = traceText
	long := ""
	for range 70 {
		long += "a"
	}
	for _, c := range []struct {
		args []traceArg
		want string
	}{
		{nil, "-"},
		{[]traceArg{{Value: "0x1"}, {Value: "0x2"}, {Value: "0x3"}, {Value: "0x4"}}, "0x1, 0x2, 0x3, ..."},
		{[]traceArg{{Value: "0x10", Parameter: str("pw"), String: &sv{Text: str("hunter2")}}}, `pw="hunter2"`},
		{[]traceArg{{Value: "0x0", Parameter: str("s"), String: &sv{}}, {Value: "0x5", Parameter: str("n")}}, "s=0x0 (unreadable), n=0x5"},
		{[]traceArg{{Value: "0x10", Parameter: str("s"), String: &sv{Text: str(long), Truncated: true}}}, `s="` + long[:60] + `"...`},
		{[]traceArg{{Value: "0x7ff0", Parameter: str("dest"), StringAtReturn: &sv{Text: str("hello")}}, {Value: "0x10", Parameter: str("src"), String: &sv{Text: str("hello")}}},
			`dest=0x7ff0, dest@return="hello", src="hello"`},
	} {
		if got := traceArgs(c.args); got != c.want {
			t.Errorf("traceArgs = %q, want %q", got, c.want)
		}
	}
}
