package hosts_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/hosts"
)

func testSkill() hosts.Skill {
	return hosts.Skill{Description: "Reverse engineer binaries and Electron apps with rea's MCP tools.",
		Version: "1.2.0", ToolCount: 59, CatalogDigest: strings.Repeat("ab", 32),
		Body: "# rea\n\nStart with binary_session.\n"}
}

func TestSkillInstallInspectRemove(t *testing.T) {
	is := is.New(t)
	h := newHome(t)
	sk := testSkill()
	path := hosts.SkillPath(h.env)
	is.Equal(path, filepath.Join(h.env.Home, ".agents", "skills", "rea", "SKILL.md"))
	is.Equal(hosts.InspectSkill(h.env, sk).Status, hosts.StatusMissing)

	plan, err := hosts.PlanSetup(h.env, h.want, &hosts.SetupOptions{Skill: &sk})
	is.NoErr(err)
	is.Equal(len(plan.Actions), 1) // no client detected: only the skill
	is.Equal(plan.Actions[0].ID, "install_skill")
	is.Equal(plan.Actions[0].Kind, hosts.ActionCreate)
	res, err := hosts.Apply(plan)
	is.NoErr(err)
	is.Equal(res.Outcomes[0].Status, hosts.OutcomeInstalled)
	data, err := os.ReadFile(path)
	is.NoErr(err)
	is.True(strings.HasPrefix(string(data), "---\nname: rea\n"))
	is.True(strings.Contains(string(data), "\n  tool_count: 59\n"))
	st := hosts.InspectSkill(h.env, sk)
	is.Equal(st.Status, hosts.StatusAligned)
	is.Equal(st.CatalogDigest, sk.CatalogDigest)

	// Another catalog: stale, and setup rewrites it with a backup.
	next := sk
	next.ToolCount, next.Version = 61, "1.3.0"
	st = hosts.InspectSkill(h.env, next)
	is.Equal(st.Status, hosts.StatusStale)
	is.True(strings.Contains(st.Detail, "tool_count 59, not 61"))
	plan, err = hosts.PlanSetup(h.env, h.want, &hosts.SetupOptions{Skill: &next})
	is.NoErr(err)
	is.Equal(plan.Actions[0].Kind, hosts.ActionUpdate)
	is.Equal(plan.Actions[0].BackupPath, path+".rea.backup")
	_, err = hosts.Apply(plan)
	is.NoErr(err)
	is.Equal(hosts.InspectSkill(h.env, next).Status, hosts.StatusAligned)

	un, err := hosts.PlanUninstall(h.env, nil)
	is.NoErr(err)
	var skillAction hosts.Action
	for _, a := range un.Actions {
		if a.ID == "remove_skill" {
			skillAction = a
		} else {
			is.Equal(a.Kind, hosts.ActionSkip) // no client files
		}
	}
	is.Equal(skillAction.Kind, hosts.ActionRemove)
	res, err = hosts.ApplyUninstall(un)
	is.NoErr(err)
	is.True(!res.Failed)
	_, err = os.Stat(path)
	is.True(os.IsNotExist(err))
}

func TestSkillNotOurs(t *testing.T) {
	is := is.New(t)
	h := newHome(t)
	path := hosts.SkillPath(h.env)
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	foreign := []byte("---\nname: something-else\n---\nhello\n")
	must(t, os.WriteFile(path, foreign, 0o644))
	sk := testSkill()
	is.Equal(hosts.InspectSkill(h.env, sk).Status, hosts.StatusInvalid)
	plan, err := hosts.PlanSetup(h.env, h.want, &hosts.SetupOptions{Skill: &sk})
	is.NoErr(err)
	is.True(plan.Blocked)
	un, err := hosts.PlanUninstall(h.env, nil)
	is.NoErr(err)
	res, err := hosts.ApplyUninstall(un)
	is.NoErr(err)
	is.Equal(res.Outcomes[len(res.Outcomes)-1].Status, hosts.OutcomeRetained)
	got, err := os.ReadFile(path)
	is.NoErr(err)
	is.Equal(got, foreign)
}

func TestSkillSymlinkedDirectoryRetained(t *testing.T) {
	is := is.New(t)
	h := newHome(t)
	real := filepath.Join(h.env.Home, "my-skills", "rea")
	must(t, os.MkdirAll(real, 0o755))
	must(t, os.WriteFile(filepath.Join(real, "SKILL.md"), testSkill().Render(), 0o644))
	must(t, os.MkdirAll(filepath.Join(h.env.Home, ".agents", "skills"), 0o755))
	must(t, os.Symlink(real, filepath.Join(h.env.Home, ".agents", "skills", "rea")))
	un, err := hosts.PlanUninstall(h.env, nil)
	is.NoErr(err)
	last := un.Actions[len(un.Actions)-1]
	is.Equal(last.Kind, hosts.ActionRetain)
	_, err = hosts.ApplyUninstall(un)
	is.NoErr(err)
	_, err = os.Stat(filepath.Join(real, "SKILL.md"))
	is.NoErr(err) // not followed
}
