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

// The one-command grammars are the whole grammar's top-level commands.
func TestCommandFieldsAreTheGrammars(t *testing.T) {
	is := is.New(t)
	var names []string
	for name := range commandFields() {
		names = append(names, name)
	}
	sort.Strings(names)
	is.Equal(names, Commands)
}

// parseWhole parses args with the whole grammar.
func parseWhole(t *testing.T, args []string) (command string, g globals, value any, ok bool) {
	t.Helper()
	whole := new(grammar)
	exited := false
	k, err := kong.New(whole, kong.Name("rea"), kong.Bind(&Options{}), kong.Writers(io.Discard, io.Discard), kong.Exit(func(int) { exited = true }))
	if err != nil {
		t.Fatal(err)
	}
	kctx, err := k.Parse(args)
	if err != nil || exited {
		return "", g, nil, false
	}
	name := strings.Fields(kctx.Command())[0]
	return kctx.Command(), whole.globals, reflect.ValueOf(whole).Elem().FieldByName(commandFields()[name].Name).Interface(), true
}

// parseOne parses args with the one-command grammar.
func parseOne(t *testing.T, args []string) (command string, g globals, value any, ok bool) {
	t.Helper()
	one, globalsOf := commandGrammar(args)
	if one == nil {
		t.Fatalf("%q: no one-command grammar", args)
	}
	exited := false
	k, err := kong.New(one, kong.Name("rea"), kong.Bind(&Options{}), kong.Writers(io.Discard, io.Discard), kong.Exit(func(int) { exited = true }))
	if err != nil {
		t.Fatal(err)
	}
	kctx, err := k.Parse(args)
	if err != nil || exited {
		return "", g, nil, false
	}
	name := strings.Fields(kctx.Command())[0]
	return kctx.Command(), *globalsOf(), reflect.ValueOf(one).Elem().FieldByName(commandFields()[name].Name).Interface(), true
}

// A plain invocation parses the same with the one-command grammar as with
// the whole one: same command, globals and command values. Invocations
// the one-command grammar refuses go to the whole grammar (Run), which
// prints its own error.
func TestOneCommandGrammarAgrees(t *testing.T) {
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
		pc, pg, pv, pok := parseOne(t, args)
		if !pok {
			continue // Run parses these with the whole grammar
		}
		parsed++
		fc, fg, fv, fok := parseWhole(t, args)
		if !fok || pc != fc || !reflect.DeepEqual(pg, fg) || !reflect.DeepEqual(pv, fv) {
			t.Errorf("%q: one-command %q %+v %+v, whole %q %+v %+v (ok %v)", args, pc, pg, pv, fc, fg, fv, fok)
		}
	}
	if parsed < 20 {
		t.Fatalf("only %d invocations parsed with the one-command grammar", parsed)
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
		is.Equal(commandNamed(args), "") // args
	}
	is.True(slices.Contains(Commands, "tools"))
	is.Equal(commandNamed([]string{"--format", "json", "tools", "--", "--help"}), "tools") // after --, --help is an argument
}
