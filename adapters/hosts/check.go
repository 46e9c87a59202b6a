package hosts

import "fmt"

// Check is one doctor check, in the shape of PROVIDERS.md §4.1.
type Check struct {
	Name           string        `json:"name"` // registration:<client> (user), registration:<client>:project, skill:identity
	OK             bool          `json:"ok"`
	Classification string        `json:"classification"` // healthy or config_drift
	Detail         string        `json:"detail,omitempty"`
	Registration   *Registration `json:"registration,omitempty"`
	Skill          *SkillState   `json:"skill,omitempty"`
	Remediation    string        `json:"remediation,omitempty"` // only when failing
}

// RegistrationChecks turns Inspect's registrations into doctor checks.
// Stale and invalid registrations fail (config_drift); a missing one fails
// only for a client named in requested (the user asked about it), and is
// informational otherwise, its detail naming the file and the setup command
// that would add rea. A requested client with no registration at all
// (not installed) gets a failing check saying so.
func RegistrationChecks(regs []Registration, requested []string) []Check {
	asked := map[string]bool{}
	for _, id := range requested {
		asked[id] = true
	}
	seen := map[string]bool{}
	var out []Check
	for i := range regs {
		r := regs[i]
		seen[r.Client] = true
		c := Check{Name: "registration:" + r.Client, Classification: "healthy", OK: true, Detail: r.Detail, Registration: &r}
		if r.Scope == ScopeProject {
			c.Name += ":project"
		}
		setup := "rea setup --client " + r.Client
		if r.Scope == ScopeProject {
			setup += " --scope project"
		}
		switch r.Status {
		case StatusStale:
			c.OK, c.Classification = false, "config_drift"
			c.Remediation = "run " + setup
			if r.Reason == ReasonOtherVersion {
				// The entry already names this path: rewriting it would not help.
				c.Remediation = fmt.Sprintf("%s reports version %s: reinstall rea there, or run %s doctor if this rea is the outdated one", r.Command, r.Version, r.Command)
			}
		case StatusInvalid:
			c.OK, c.Classification = false, "config_drift"
			c.Remediation = remediation(r)
		case StatusMissing:
			if asked[r.Client] {
				c.OK, c.Classification = false, "config_drift"
				c.Remediation = "run " + setup
			} else {
				// Optional, so it passes; the detail says what would add it.
				c.Detail = "not registered: " + missingWhere(r) + " (" + setup + " adds rea)"
			}
		}
		out = append(out, c)
	}
	for _, id := range requested {
		if !seen[id] {
			name := id
			for _, cl := range Clients() {
				if cl.ID == id {
					name = cl.Name
				}
			}
			out = append(out, Check{Name: "registration:" + id, Classification: "config_drift",
				Detail:      fmt.Sprintf("Requested client %s was not detected.", name),
				Remediation: fmt.Sprintf("install %s, or leave it out of --client", name)})
		}
	}
	return out
}

// Check is the skill:identity doctor check. A skill that is not installed
// passes unless required; its detail then names the command that installs it.
func (s SkillState) Check(required bool) Check {
	c := Check{Name: "skill:identity", OK: true, Classification: "healthy", Detail: s.Detail, Skill: &s}
	switch {
	case s.Status == StatusAligned:
	case s.Status == StatusMissing && !required:
		if s.Path != "" {
			c.Detail = s.Detail + " (rea setup --install-skill installs it at " + s.Path + ")"
		}
	default:
		c.OK, c.Classification = false, "config_drift"
		c.Remediation = "run rea setup --install-skill"
		if s.Status == StatusInvalid {
			c.Remediation = fmt.Sprintf("move %s away (it is not rea's or cannot be read), then run rea setup --install-skill", s.Path)
		}
	}
	return c
}

// missingWhere says where rea's entry is missing: the file, or what the
// file lacks.
func missingWhere(r Registration) string {
	switch {
	case r.Path == "":
		return r.Detail
	case r.Reason == ReasonNoFile:
		return r.Path + " does not exist"
	default:
		return r.Detail + " in " + r.Path
	}
}
