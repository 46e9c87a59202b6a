package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/alecthomas/kong"

	"rea/core"
)

// completionCmd prints a completion script generated from the grammar
// itself, so a new command or flag completes without editing a script.
// Operation names complete after rea call and rea tools.
type completionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"bash, zsh or fish."`
}

// The scripts are written from this model.
type completionModel struct {
	globalFlags []string
	commands    []completionNode
	tools       []string
	providers   []string // --provider's values: auto and this build's providers
}

type completionNode struct {
	name, help string
	flags      []string            // --long names
	flagHelp   map[string]string   // --long → help
	children   []string            // nested commands (rea mcp doctor)
	files      bool                // takes a path positional
	enums      map[string][]string // --flag → its values
	args       []string            // values of the first positional, when it is an enum
}

func (c *completionCmd) Run(e *env) error {
	m := e.completionModel()
	w := e.opts.Stdout
	switch c.Shell {
	case "bash":
		writeBash(w, m, false)
	case "zsh":
		fmt.Fprintln(w, "#compdef rea")
		fmt.Fprintln(w, "autoload -U +X bashcompinit && bashcompinit")
		writeBash(w, m, true)
	case "fish":
		writeFish(w, m)
	}
	return nil
}

func (e *env) completionModel() completionModel {
	var g grammar
	k, err := kong.New(&g, kong.Name("rea"))
	m := completionModel{}
	for _, op := range e.opts.Catalog.Operations() {
		m.tools = append(m.tools, op.Name)
	}
	m.providers = []string{core.SelectorAuto}
	for _, p := range e.opts.Registry.Providers() {
		m.providers = append(m.providers, p.Info().ID)
	}
	if err != nil {
		return m
	}
	for _, f := range k.Model.Flags {
		if !f.Hidden {
			m.globalFlags = append(m.globalFlags, "--"+f.Name)
		}
	}
	for _, c := range k.Model.Children {
		if c.Hidden {
			continue
		}
		n := completionNode{name: c.Name, help: c.Help, flagHelp: map[string]string{}, enums: map[string][]string{}}
		for _, group := range c.AllFlags(true) {
			for _, f := range group {
				if f.Hidden || f.Name == "help" {
					continue
				}
				if isGlobal(k, f.Name) {
					continue
				}
				n.flags = append(n.flags, "--"+f.Name)
				n.flagHelp["--"+f.Name] = f.Help
				if f.Enum != "" {
					n.enums["--"+f.Name] = strings.Split(f.Enum, ",")
				}
			}
		}
		for _, p := range c.Positional {
			if p.Tag != nil && p.Tag.Type == "path" {
				n.files = true
			}
			if p.Enum != "" && len(n.args) == 0 {
				n.args = strings.Split(p.Enum, ",")
			}
		}
		if len(c.Positional) > 0 && !n.files && len(n.args) == 0 {
			n.files = true // APP, @FILE and the like are mostly paths
		}
		for _, ch := range c.Children {
			n.children = append(n.children, ch.Name)
		}
		m.commands = append(m.commands, n)
	}
	sort.Slice(m.commands, func(i, j int) bool { return m.commands[i].name < m.commands[j].name })
	return m
}

func isGlobal(k *kong.Kong, name string) bool {
	for _, f := range k.Model.Flags {
		if f.Name == name {
			return true
		}
	}
	return false
}

func writeBash(w io.Writer, m completionModel, zsh bool) {
	names := make([]string, len(m.commands))
	for i, c := range m.commands {
		names[i] = c.name
	}
	fmt.Fprintf(w, `# rea completion for %s; load with: source <(rea completion %s)
_rea() {
  local cur cmd i w skip
  cur="${COMP_WORDS[COMP_CWORD]}"
  cmd=""
  skip=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="${COMP_WORDS[i]}"
    if [[ $skip == 1 ]]; then skip=0; continue; fi
    case "$w" in
      --format|--provider) skip=1 ;;
      -*) ;;
      *) cmd="$w"; break ;;
    esac
  done
  case "${COMP_WORDS[COMP_CWORD-1]}" in
    --format) COMPREPLY=($(compgen -W "text json" -- "$cur")); return ;;
    --provider) COMPREPLY=($(compgen -W %q -- "$cur")); return ;;
`, map[bool]string{false: "bash", true: "zsh"}[zsh], map[bool]string{false: "bash", true: "zsh"}[zsh], strings.Join(m.providers, " "))
	for _, c := range m.commands {
		for _, f := range sortedFlagNames(c.enums) {
			fmt.Fprintf(w, "    %s) [[ $cmd == %s ]] && { COMPREPLY=($(compgen -W %q -- \"$cur\")); return; } ;;\n", f, c.name, strings.Join(c.enums[f], " "))
		}
	}
	fmt.Fprintf(w, "  esac\n  case \"$cmd\" in\n    \"\") COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", strings.Join(append(append([]string{}, names...), m.globalFlags...), " "))
	tools := strings.Join(m.tools, " ")
	// Kong takes the global flags after the command too (rea analyze
	// --format json FILE): every command offers them, --version aside.
	var global []string
	for _, f := range m.globalFlags {
		if f != "--version" {
			global = append(global, f)
		}
	}
	for _, c := range m.commands {
		words := append(append([]string{}, c.flags...), global...)
		words = append(words, c.children...)
		words = append(words, c.args...)
		if c.name == "call" || c.name == "tools" {
			words = append(words, m.tools...)
			_ = tools
		}
		files := ""
		if c.files {
			files = `; [[ $cur != -* ]] && COMPREPLY+=($(compgen -f -- "$cur"))`
		}
		fmt.Fprintf(w, "    %s) COMPREPLY=($(compgen -W %q -- \"$cur\"))%s ;;\n", c.name, strings.Join(words, " "), files)
	}
	fmt.Fprintln(w, "  esac\n}\ncomplete -o default -F _rea rea")
}

func sortedFlagNames(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func writeFish(w io.Writer, m completionModel) {
	fmt.Fprintln(w, "# rea completion for fish; load with: rea completion fish | source")
	fmt.Fprintln(w, "complete -c rea -f")
	fmt.Fprintln(w, "complete -c rea -l format -x -a 'text json' -d 'Output format'")
	fmt.Fprintf(w, "complete -c rea -l provider -x -a %s -d 'Analysis provider'\n", fishQuote(strings.Join(m.providers, " ")))
	fmt.Fprintln(w, "complete -c rea -l version -d 'Print the version and exit'")
	for _, c := range m.commands {
		fmt.Fprintf(w, "complete -c rea -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(firstSentence(c.help)))
	}
	for _, c := range m.commands {
		cond := "'__fish_seen_subcommand_from " + c.name + "'"
		for _, f := range c.flags {
			vals := ""
			if e := c.enums[f]; len(e) > 0 {
				vals = " -x -a " + fishQuote(strings.Join(e, " "))
			}
			fmt.Fprintf(w, "complete -c rea -n %s -l %s%s -d %s\n", cond, strings.TrimPrefix(f, "--"), vals, fishQuote(firstSentence(c.flagHelp[f])))
		}
		for _, ch := range c.children {
			fmt.Fprintf(w, "complete -c rea -n %s -a %s\n", cond, ch)
		}
		if len(c.args) > 0 {
			fmt.Fprintf(w, "complete -c rea -n %s -a %s\n", cond, fishQuote(strings.Join(c.args, " ")))
		}
		if c.name == "call" || c.name == "tools" {
			fmt.Fprintf(w, "complete -c rea -n %s -a %s\n", cond, fishQuote(strings.Join(m.tools, " ")))
		}
		if c.files {
			fmt.Fprintf(w, "complete -c rea -n %s -F\n", cond)
		}
	}
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		s = s[:i]
	}
	return truncate(strings.TrimSuffix(s, "."), 70)
}

func fishQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}
