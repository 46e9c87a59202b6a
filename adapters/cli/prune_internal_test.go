package cli

import (
	"io"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/matryer/is"
)

// The pruned grammar knows the same command names as the whole one.
func TestCommandFieldsAreTheGrammars(t *testing.T) {
	is := is.New(t)
	var names []string
	for name := range commandFields() {
		names = append(names, name)
	}
	sort.Strings(names)
	is.Equal(names, Commands)
}

// parseWith parses args with the whole grammar (ignore "") or a pruned one
// and reports the command, the globals and the command's value.
func parseWith(t *testing.T, args []string, ignore string) (command string, globals globals, value any, ok bool) {
	t.Helper()
	g := new(grammar)
	exited := false
	opts := []kong.Option{kong.Name("rea"), kong.Bind(&Options{}), kong.Writers(io.Discard, io.Discard), kong.Exit(func(int) { exited = true })}
	if ignore != "" {
		opts = append(opts, kong.IgnoreFields(ignore))
	}
	k, err := kong.New(g, opts...)
	if err != nil {
		t.Fatal(err)
	}
	kctx, err := k.Parse(args)
	if err != nil || exited {
		return "", globals, nil, false
	}
	name := strings.Fields(kctx.Command())[0]
	field := reflect.ValueOf(g).Elem().FieldByName(commandFields()[name])
	return kctx.Command(), g.globals, field.Interface(), true
}

// A plain invocation parses the same with the pruned grammar as with the
// whole one: same command, globals and command values. Invocations the
// pruned grammar refuses go to the whole grammar (Run), which prints its
// own error.
func TestPrunedGrammarAgrees(t *testing.T) {
	invocations := [][]string{
		{"tools"}, {"tools", "address_name"}, {"--format", "json", "tools"}, {"--format=json", "tools"},
		{"analyze", "/usr/bin/ls"}, {"--provider", "rea-native", "analyze", "/usr/bin/ls", "--format", "json"},
		{"call", "open_binary", `{"path":"/usr/bin/ls"}`}, {"serve"}, {"mcp", "doctor"}, {"completion", "bash"},
		{"analyze-javascript-application", "app"}, {"compare", "a", "b"}, {"version"}, {"catalog"},
		{"inventory", "x"}, {"capabilities"}, {"providers"}, {"doctor"},
	}
	for _, name := range Commands {
		invocations = append(invocations, []string{name})
	}
	parsed := 0
	for _, args := range invocations {
		ignore := otherCommands(args)
		if ignore == "" {
			t.Fatalf("%q: not pruned", args)
		}
		pc, pg, pv, pok := parseWith(t, args, ignore)
		if !pok {
			continue // Run parses these with the whole grammar
		}
		parsed++
		fc, fg, fv, fok := parseWith(t, args, "")
		if !fok || pc != fc || !reflect.DeepEqual(pg, fg) || !reflect.DeepEqual(pv, fv) {
			t.Errorf("%q: pruned %q %+v %+v, whole %q %+v %+v (ok %v)", args, pc, pg, pv, fc, fg, fv, fok)
		}
	}
	if parsed < 20 {
		t.Fatalf("only %d invocations parsed with the pruned grammar", parsed)
	}
}

// Help, --version, unknown commands and flags before the command are left
// to the whole grammar.
func TestPruneDeclines(t *testing.T) {
	is := is.New(t)
	for _, args := range [][]string{
		nil, {"--help"}, {"-h"}, {"tools", "--help"}, {"tools", "-h"}, {"--version"}, {"tools", "--version"},
		{"nosuchcommand"}, {"--bogus", "tools"}, {"--format"}, {"analyze", "-vh"},
	} {
		is.Equal(otherCommands(args), "") // args
	}
	is.True(slices.Contains(Commands, "tools"))
	is.True(otherCommands([]string{"tools", "--", "--help"}) != "") // after --, --help is an argument
}
