package hosts

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Skill is rea's agent skill: a SKILL.md whose front matter carries the
// catalog identity it was generated from, so doctor can tell a skill
// written by another rea version. The caller generates Description and
// Body from the catalog.
type Skill struct {
	Description   string
	Version       string
	ToolCount     int
	CatalogDigest string // hex SHA-256 of the catalog
	Body          string // Markdown after the front matter
}

// skillName is the skill's directory and front-matter name.
const skillName = "rea"

// SkillPath is where the skill is installed: ~/.agents/skills/rea/SKILL.md,
// the directory agent hosts share for user skills.
func SkillPath(env Env) string {
	return env.home(".agents", "skills", skillName, "SKILL.md")
}

func yamlString(s string) string { return strconv.Quote(s) }

// Render is the SKILL.md text.
func (s Skill) Render() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\nmetadata:\n", skillName, yamlString(s.Description))
	fmt.Fprintf(&b, "  version: %s\n  tool_count: %d\n  catalog_digest: %s\n---\n", yamlString(s.Version), s.ToolCount, yamlString(s.CatalogDigest))
	b.WriteString(s.Body)
	if !strings.HasSuffix(s.Body, "\n") {
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// SkillState is what InspectSkill found.
type SkillState struct {
	Path          string `json:"path"`
	Status        Status `json:"status"`
	Reason        Reason `json:"reason,omitempty"`
	Detail        string `json:"detail"`
	Version       string `json:"version,omitempty"`
	ToolCount     int    `json:"tool_count,omitempty"`
	CatalogDigest string `json:"catalog_digest,omitempty"`
}

// skillMeta reads name and the metadata block of a SKILL.md front matter.
func skillMeta(data []byte) (name string, meta map[string]string, ok bool) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return "", nil, false
	}
	end := strings.Index(text[4:], "\n---")
	if end < 0 {
		return "", nil, false
	}
	meta = map[string]string{}
	inMeta := false
	for _, line := range strings.Split(text[4:4+end], "\n") {
		indented := strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")
		k, v, found := strings.Cut(strings.TrimSpace(line), ":")
		if !found {
			continue
		}
		v = strings.TrimSpace(v)
		if u, err := strconv.Unquote(v); err == nil {
			v = u
		} else if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
			v = strings.ReplaceAll(v[1:len(v)-1], "''", "'")
		}
		switch {
		case !indented:
			inMeta = k == "metadata"
			if k == "name" {
				name = v
			}
		case inMeta:
			meta[k] = v
		}
	}
	return name, meta, true
}

// InspectSkill compares the installed skill's metadata with want's.
func InspectSkill(env Env, want Skill) SkillState {
	s := SkillState{Path: SkillPath(env)}
	c, ferr := readConfig(s.Path)
	switch {
	case ferr != nil:
		s.Status, s.Reason, s.Detail = StatusInvalid, ferr.Reason, ferr.Error()
		return s
	case !c.exists:
		s.Status, s.Reason, s.Detail = StatusMissing, ReasonNoFile, "the skill is not installed"
		return s
	}
	name, meta, ok := skillMeta(c.data)
	if !ok || name != skillName {
		s.Status, s.Reason, s.Detail = StatusInvalid, ReasonShape, "SKILL.md has no front matter naming rea"
		return s
	}
	s.Version, s.CatalogDigest = meta["version"], meta["catalog_digest"]
	s.ToolCount, _ = strconv.Atoi(meta["tool_count"])
	var diffs []string
	if s.Version != want.Version {
		diffs = append(diffs, fmt.Sprintf("version %q, not %q", s.Version, want.Version))
	}
	if s.ToolCount != want.ToolCount {
		diffs = append(diffs, fmt.Sprintf("tool_count %d, not %d", s.ToolCount, want.ToolCount))
	}
	if s.CatalogDigest != want.CatalogDigest {
		diffs = append(diffs, fmt.Sprintf("catalog_digest %q, not %q", s.CatalogDigest, want.CatalogDigest))
	}
	if len(diffs) > 0 {
		s.Status, s.Reason, s.Detail = StatusStale, ReasonOtherVersion, "the skill was written for another catalog: "+strings.Join(diffs, ", ")
		return s
	}
	s.Status, s.Detail = StatusAligned, "the skill matches this catalog"
	return s
}

func planSkill(env Env, want Skill) Action {
	a := Action{ID: "install_skill", Path: SkillPath(env), skill: &want}
	if a.Path == "" {
		a.Kind, a.Reason, a.Detail, a.Remediation = ActionInvalid, ReasonNoFile, "no home directory", "set HOME"
		return a
	}
	c, ferr := readConfig(a.Path)
	switch {
	case ferr != nil:
		a.Kind, a.Reason, a.Detail = ActionInvalid, ferr.Reason, ferr.Error()
		a.Remediation = remediation(Registration{Path: a.Path, Reason: ferr.Reason, Detail: ferr.Error()})
	case !c.exists:
		a.Kind, a.Detail = ActionCreate, "installs the agent skill"
	case bytes.Equal(c.data, want.Render()):
		a.Kind, a.Detail = ActionAlreadyCurrent, "the skill is current"
	case c.readOnly:
		a.Kind, a.Reason, a.Detail = ActionInvalid, ReasonReadOnly, "the skill file or its directory is read-only"
		a.Remediation = fmt.Sprintf("make %s writable", a.Path)
	default:
		if name, _, ok := skillMeta(c.data); !ok || name != skillName {
			a.Kind, a.Reason, a.Detail = ActionInvalid, ReasonForeign, "SKILL.md there is not rea's"
			a.Remediation = fmt.Sprintf("move %s away, then run setup again", a.Path)
			return a
		}
		a.Kind, a.Detail = ActionUpdate, "rewrites the agent skill for this catalog"
		a.BackupPath, _ = backupPath(c.real, c.data, false)
	}
	return a
}

func applySkill(a Action) Outcome {
	if a.Kind == ActionAlreadyCurrent {
		return outcome(a, OutcomeUnchanged, "", nil)
	}
	want := a.skill.Render()
	return locked(a, true, func(c config) Outcome {
		if c.exists && bytes.Equal(c.data, want) {
			return outcome(a, OutcomeUnchanged, "", nil)
		}
		if c.exists {
			if name, _, ok := skillMeta(c.data); !ok || name != skillName {
				return failed(a, "write", ReasonForeign, errors.New("SKILL.md there is not rea's"))
			}
		}
		if c.readOnly {
			return failed(a, "write", ReasonReadOnly, errors.New("read-only"))
		}
		backup, ferr := commit(c, want)
		return outcome(a, OutcomeInstalled, backup, ferr)
	})
}

func planSkillRemoval(env Env) Action {
	a := Action{ID: "remove_skill", Path: SkillPath(env), skill: &Skill{}}
	if a.Path == "" {
		a.Kind, a.Reason, a.Detail = ActionSkip, ReasonNoFile, "no home directory"
		return a
	}
	a.Kind, a.Reason, a.Detail = skillRemoval(a.Path)
	return a
}

func skillRemoval(path string) (ActionKind, Reason, string) {
	dir := filepath.Dir(path)
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return ActionRetain, ReasonUnsafeSymlink, "the skill directory is a symbolic link; it is not followed"
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ActionSkip, ReasonNoFile, "the skill is not installed"
	}
	if err != nil || !fi.Mode().IsRegular() {
		return ActionRetain, ReasonNotRegular, "SKILL.md is not a regular file"
	}
	c, ferr := readConfig(path)
	if ferr != nil {
		return ActionInvalid, ferr.Reason, ferr.Error()
	}
	if name, _, ok := skillMeta(c.data); !ok || name != skillName {
		return ActionRetain, ReasonForeign, "SKILL.md there is not rea's"
	}
	return ActionRemove, ReasonNone, "removes the agent skill"
}

func removeSkill(a Action) Outcome {
	switch a.Kind {
	case ActionSkip:
		return Outcome{ID: a.ID, Path: a.Path, Status: OutcomeSkipped, Reason: a.Reason, Detail: a.Detail}
	case ActionRetain:
		return Outcome{ID: a.ID, Path: a.Path, Status: OutcomeRetained, Reason: a.Reason, Detail: a.Detail}
	case ActionInvalid:
		return failed(a, "read", a.Reason, errors.New(a.Detail))
	}
	kind, reason, detail := skillRemoval(a.Path)
	if kind != ActionRemove {
		a.Kind, a.Reason, a.Detail = kind, reason, detail
		return removeSkill(a)
	}
	if err := os.Remove(a.Path); err != nil {
		return failed(a, "write", ReasonWrite, err)
	}
	_ = os.Remove(filepath.Dir(a.Path)) // only when empty
	return Outcome{ID: a.ID, Path: a.Path, Status: OutcomeRemoved, Detail: detail}
}
