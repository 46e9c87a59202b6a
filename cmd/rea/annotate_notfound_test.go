package main

import (
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// TestAnnotationListingNotFound: when the engine answers not found to a
// listing an annotation tool makes (its comments; before them its
// documents, segments, procedures and names), the agent gets
// invalid_request with details.reason not_found, details.looked_for what
// was listed and details.address the address looked for, not an issue
// blaming its arguments. Before, comment through Hopper answered
// `comment: hopper bridge: invalid_request: ...` with an issue at the
// empty path, and Ghidra's list_bookmarks `list_bookmarks: ghidra bridge:
// not_found: ...`. The same calls through Hopper and Ghidra without the
// fault, and through rea-native, answer the comment set.
func TestAnnotationListingNotFound(t *testing.T) {
	const at = "0x401000" // helper, in the fixtures' .text
	comment := func(t *testing.T, call func(string, map[string]any) (string, bool), addr string) {
		is := is.New(t)
		text, isErr := call("set_comment", map[string]any{"address": addr, "comment": "entry"})
		is.True(!isErr) // text
		text, isErr = call("comment", map[string]any{"address": addr})
		if isErr {
			t.Fatalf("comment: %s", text)
		}
		_, m := evidence(t, result{text: text})
		is.Equal(m["comment"], "entry")
	}
	for _, k := range []engineKind{hopperKind, ghidraKind} {
		t.Run(k.name, func(t *testing.T) {
			h := k.newHost(t)
			h.open()
			comment(t, func(n string, a map[string]any) (string, bool) { return h.mustCall(n, a, "") }, at)
		})
	}
	t.Run("rea-native", func(t *testing.T) {
		exe := buildC(t, "notfound", "int helper(int x) { return x + 1; }\nint main(int c, char **v) { return helper(c); }\n")
		cs := mcpClient(t)
		is.New(t).True(!call(t, cs, "open_binary", map[string]any{"path": exe}).isError)
		comment(t, func(n string, a map[string]any) (string, bool) {
			r := call(t, cs, n, a)
			return r.text, r.isError
		}, "main")
	})

	t.Run("Hopper comments", func(t *testing.T) {
		is := is.New(t)
		h := newHopperHost(t, "FAKE_HOPPER_MODE=error:invalid_request:get_annotation")
		h.open()
		text, isErr := h.mustCall("set_comment", map[string]any{"address": at, "comment": "entry"}, "")
		is.True(!isErr) // text
		text, isErr = h.mustCall("comment", map[string]any{"address": at}, "")
		is.True(isErr)
		e := errorOf(t, text)
		is.Equal(e.Code, core.CodeInvalidRequest)
		is.Equal(e.Details["reason"], "not_found")
		is.Equal(e.Details["looked_for"], "comments")
		is.Equal(e.Details["address"], at)
		is.Equal(e.Details["issues"], nil) // no argument is at fault
	})
	for _, tc := range []struct {
		kind engineKind
		mode string
	}{{ghidraKind, "error:not_found"}, {hopperKind, "error:invalid_request"}} {
		t.Run(tc.kind.name+" listing", func(t *testing.T) {
			is := is.New(t)
			h := tc.kind.newHost(t, tc.kind.fake+"_MODE="+tc.mode)
			h.open()
			text, isErr := h.mustCall("list_bookmarks", map[string]any{}, "")
			is.True(isErr)
			e := errorOf(t, text)
			is.Equal(e.Code, core.CodeInvalidRequest)
			is.Equal(e.Details["reason"], "not_found")
			is.True(e.Details["looked_for"] != nil) // text
			is.Equal(e.Details["address"], nil)
			is.Equal(e.Details["issues"], nil)
		})
	}
}
