package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// A .NET assembly through the tools an agent uses first: the C# fixture
// of rea-native's CIL tests, built by mono's compiler.
func cilApp(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("mcs"); err != nil {
		t.Skip("mcs is not installed: apt install mono-devel")
	}
	out := filepath.Join(t.TempDir(), "app.exe")
	if b, err := exec.CommandContext(t.Context(), "mcs", "-optimize+", "-out:"+out, "../../adapters/native/testdata/clr/app.cs").CombinedOutput(); err != nil {
		t.Fatalf("mcs: %v\n%s", err, b)
	}
	return out
}

func TestMCPDotNetAssembly(t *testing.T) {
	is := is.New(t)
	app := cilApp(t)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": app}).isError)
	_, m := evidence(t, call(t, cs, "binary_overview", map[string]any{}))
	var overview struct{ Architecture string }
	decode(t, m, &overview)
	is.Equal(overview.Architecture, "cil")

	_, m = evidence(t, call(t, cs, "list_procedures", map[string]any{}))
	var procs struct {
		Items []struct{ Address, Symbol string }
	}
	decode(t, m, &procs)
	names := map[string]string{}
	for _, p := range procs.Items {
		names[p.Symbol] = p.Address
	}
	for _, want := range []string{"Rea.Fixture.Program::Main", "Rea.Fixture.Circle/Builder::Build", "Rea.Fixture.Program::Classify"} {
		if names[want] == "" {
			t.Errorf("list_procedures lacks %s: %v", want, procs.Items)
		}
	}

	// a user string -> the method that loads it
	_, m = evidence(t, call(t, cs, "find_code_for_string", map[string]any{"query": "parsed"}))
	var found struct {
		Procedures []struct{ Name string }
	}
	decode(t, m, &found)
	is.Equal(len(found.Procedures), 1)
	is.Equal(found.Procedures[0].Name, "Rea.Fixture.Program::Guarded")

	// callees: its own methods, mscorlib's and a P/Invoke import
	_, m = evidence(t, call(t, cs, "procedure_callees", map[string]any{"procedure": "Rea.Fixture.Program::Main"}))
	var callees struct {
		Items []struct {
			Name     string
			External bool
		}
	}
	decode(t, m, &callees)
	got := map[string]bool{}
	for _, c := range callees.Items {
		got[c.Name] = c.External
	}
	is.Equal(got["Rea.Fixture.Program::Classify"], false)
	is.Equal(got["System.Console::WriteLine"], true)
	is.Equal(got["getpid"], true)

	_, m = evidence(t, call(t, cs, "find_xrefs_to_name", map[string]any{"name": "getpid"}))
	var xrefs struct {
		Matches []struct{ Library string }
	}
	decode(t, m, &xrefs)
	is.Equal(len(xrefs.Matches), 1)
	is.Equal(xrefs.Matches[0].Library, "libc")

	// its signature, from the metadata
	_, m = evidence(t, call(t, cs, "analyze_function", map[string]any{"procedure": "Rea.Fixture.Program::Guarded"}))
	// and its handlers: the try's block is followed by an exception edge to
	// the catch and to the finally, which begin blocks saying what they are
	var dossier struct {
		Procedure   struct{ Address, Signature string }
		BasicBlocks struct {
			Items []struct {
				Start, Handler, Catches string
				Successors              []struct{ Kind, Target string }
			}
		} `json:"basic_blocks"`
	}
	decode(t, m, &dossier)
	is.Equal(dossier.Procedure.Signature, "int32 Rea.Fixture.Program::Guarded(string s)")
	handlers := map[string]string{} // a handler's first block -> its kind and type
	var entered []string            // where the method's first block's exception edges go
	for _, b := range dossier.BasicBlocks.Items {
		if b.Handler != "" {
			handlers[b.Start] = strings.TrimSpace(b.Handler + " " + b.Catches)
		}
		for _, e := range b.Successors {
			if e.Kind == "exception" && b.Start == dossier.Procedure.Address {
				entered = append(entered, e.Target)
			}
		}
	}
	is.Equal(len(entered), 2)
	for i, want := range []string{"catch [mscorlib]System.FormatException", "finally"} {
		if handlers[entered[i]] != want {
			t.Errorf("exception edge %d to %s: %q, want %q", i, entered[i], handlers[entered[i]], want)
		}
	}

	// the disassembly of a method, by name
	ev, _ := evidence(t, call(t, cs, "procedure_assembly", map[string]any{"procedure": "Rea.Fixture.Program::Guarded"}))
	var text string
	is.NoErr(json.Unmarshal(ev.NormalizedResult, &text))
	is.True(strings.Contains(text, `ldstr "parsed"`))
	is.True(strings.Contains(text, "call [mscorlib]System.Console::WriteLine(string)"))
	// operands name overloads by their parameters, generic instances by
	// their arguments
	ev, _ = evidence(t, call(t, cs, "procedure_assembly", map[string]any{"procedure": "Rea.Fixture.Program::Main"}))
	is.NoErr(json.Unmarshal(ev.NormalizedResult, &text))
	for _, want := range []string{"call [mscorlib]System.Console::WriteLine(string, object, object, object)",
		"callvirt [mscorlib]System.Collections.Generic.List`1<Rea.Fixture.IShape>::Add(!0)",
		"call Rea.Fixture.Program::First<int32>([mscorlib]System.Collections.Generic.List`1<!!0>)"} {
		if !strings.Contains(text, want) {
			t.Errorf("Main's assembly lacks %q:\n%s", want, text)
		}
	}
}

func TestCLIDotNetAssembly(t *testing.T) {
	is := is.New(t)
	app := cilApp(t)
	out, _, code := runCLI(t, "analyze", app)
	is.Equal(code, 0)
	for _, want := range []string{"pe executable, cil", "Rea.Fixture.Program::Main", "h\u00e9llo w\u00f6rld \u2713"} {
		if !strings.Contains(out, want) {
			t.Errorf("analyze output lacks %q:\n%s", want, out)
		}
	}
	out, _, code = runCLI(t, "disassemble", app)
	is.Equal(code, 0)
	is.True(strings.Contains(out, "<Rea.Fixture.Program::Classify>:"))
	is.True(strings.Contains(out, "\tswitch (0x"))
}
