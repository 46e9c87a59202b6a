package cli

import (
	"bytes"
	"strings"
	"testing"
)

// A table's columns: the leading names first in their order (a segment's
// name, then where it starts and ends and its length), the rest by name,
// and columns of small records last, however wide they are.
func TestTableColumnOrder(t *testing.T) {
	for _, c := range []struct {
		rows []any
		head string
	}{
		{[]any{map[string]any{"start": "0x318", "end": "0x334", "length": "0x1c", "name": ".interp", "kind": "section"}},
			"NAME  KIND  START  END  LENGTH"},
		{[]any{map[string]any{"address": "0x1030", "value": "puts@plt", "size": "0x10", "source": "plt", "symbol": "puts@plt",
			"procedure": map[string]any{"external": true, "thunk": true}}},
			"ADDRESS  VALUE  SIZE  SYMBOL  SOURCE  PROCEDURE"},
	} {
		var b bytes.Buffer
		if !table(&b, c.rows, "") {
			t.Fatal("not printed as a table")
		}
		head := strings.Join(strings.Fields(strings.SplitN(b.String(), "\n", 2)[0]), "  ")
		if head != c.head {
			t.Errorf("columns %q, want %q", head, c.head)
		}
	}
}

// Limitations print whole in the outline: the advice at the end of a long
// one ("or call again with detail complete") is what a reader acts on.
func TestOutlineKeepsLimitationsWhole(t *testing.T) {
	long := "Concise dossier: " + strings.Repeat("each collection holds at most its first items; ", 4) + `or call again with "detail":"complete".`
	var b bytes.Buffer
	outline(&b, map[string]any{"name": strings.Repeat("x", 200), "limitations": []any{long, "short"}}, "")
	out := b.String()
	if !strings.Contains(out, "  - "+long+"\n") || !strings.Contains(out, "  - short\n") {
		t.Fatalf("limitations cut:\n%s", out)
	}
	if strings.Contains(out, strings.Repeat("x", 200)) {
		t.Fatalf("other cells are still bounded:\n%s", out)
	}
}
