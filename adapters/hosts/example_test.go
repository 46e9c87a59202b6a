package hosts_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rea/adapters/hosts"
)

// The flow behind `rea doctor`, `rea setup --yes` and `rea uninstall --yes`
// for a user who has Codex installed.
func Example() {
	root, err := os.MkdirTemp("", "rea-hosts-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	env := hosts.Env{Home: filepath.Join(root, "home"), GOOS: "linux"}
	if err := os.MkdirAll(filepath.Join(env.Home, ".codex"), 0o755); err != nil {
		panic(err)
	}
	want := hosts.Entry{Command: "/usr/local/bin/rea", Version: "1.2.0"}
	trim := func(s string) string { return strings.ReplaceAll(s, root, "") }

	// rea doctor
	regs, _ := hosts.Inspect(env, want, nil)
	for _, c := range hosts.RegistrationChecks(regs, nil) {
		fmt.Println("doctor:", c.Name, c.OK, c.Registration.Status)
	}

	// rea setup: print the plan; apply it only with --yes.
	plan, _ := hosts.PlanSetup(env, want, nil)
	var b strings.Builder
	_ = plan.WriteText(&b)
	fmt.Print(trim(b.String()))
	res, _ := hosts.Apply(plan)
	fmt.Println("setup:", res.Outcomes[0].Status)
	regs, _ = hosts.Inspect(env, want, nil)
	fmt.Println("doctor:", regs[0].Status)

	// rea uninstall
	plan, _ = hosts.PlanUninstall(env, nil)
	res, _ = hosts.ApplyUninstall(plan)
	for _, o := range res.Outcomes {
		if o.Status != hosts.OutcomeSkipped {
			fmt.Println("uninstall:", o.ID, o.Status)
		}
	}
	// Output:
	// doctor: registration:codex true missing
	// create           Codex (user)               /home/.codex/config.toml
	// setup: configured
	// doctor: aligned
	// uninstall: remove_client:codex:user restored
}
