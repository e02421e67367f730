package manifest_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/profile"
	"github.com/ctxaudit/ctx/render"
)

func reasons(m *manifest.Manifest) string {
	var out []string
	for _, s := range m.Sources {
		id := s.ID
		if strings.HasPrefix(id, "native:") {
			id = "native:" + filepath.Base(id)
		}
		d := id + "=" + string(s.Reason)
		if s.DuplicateOf != "" {
			d += "(" + filepath.Base(s.DuplicateOf) + ")"
		}
		out = append(out, d)
	}
	return strings.Join(out, " ")
}

// A CLAUDE.md that is just "@AGENTS.md": with the claude profile, Claude
// Code loads both by itself, so ctx sends neither and calls neither a
// fallback; without a profile, the original's rule applies.
func TestProfileClaudeImport(t *testing.T) {
	dir := project(t, map[string]string{".git/HEAD": "", "CLAUDE.md": "@AGENTS.md\n", "AGENTS.md": "# Rules\nUse Go.\n"})
	none := func(string) string { return "" }
	o := manifest.Options{
		Discover:       discover.Options{ProjectDir: dir, Home: dir, SharedMode: discover.SharedDisabled, Getenv: none},
		Profile:        profile.Claude,
		ProfileOptions: profile.Options{ManagedDir: filepath.Join(dir, "no-managed")},
	}
	m := build(t, o)
	if m.Agent != "claude" {
		t.Errorf("agent %q, want the profile's name", m.Agent)
	}
	want := "native:CLAUDE.md=native_autoload native:AGENTS.md=native_autoload project_agents=native_autoload(AGENTS.md) project_claude=native_autoload(CLAUDE.md)"
	if got := reasons(m); got != want {
		t.Errorf("decisions\n got  %s\nwant %s", got, want)
	}
	if render.Text(m) != "" {
		t.Errorf("ctx sends %q, want nothing: the agent loads both files", render.Text(m))
	}
	p := m.Profile
	if p == nil || p.Name != "claude" || len(p.Files) != 2 || p.Files[1].ImportedBy != p.Files[0].ID || p.Files[1].Import != "@AGENTS.md" ||
		p.Files[1].LoadedBytes != 16 || p.Files[1].LoadedTokens != 4 || len(p.Issues) != 0 {
		t.Errorf("profile record %+v", p)
	}
	rep, err := audit.Run(m, audit.DefaultThresholds(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Native.Files != 2 || rep.Native.Bytes != 11+16 || rep.Native.Tokens != 3+4 || rep.Total.Tokens != 0 {
		t.Errorf("native %+v total %+v", rep.Native, rep.Total)
	}
	for _, f := range rep.Findings {
		if f.Code == "fallback_not_selected" || f.Severity == audit.Warning {
			t.Errorf("finding %+v", f)
		}
	}

	// without a profile: the original's decisions, nothing inferred from
	// the agent's name
	o.Profile, o.Discover.Agent = "", "claude"
	m = build(t, o)
	if got := reasons(m); got != "project_agents=included project_claude=fallback_not_selected" || m.Profile != nil {
		t.Errorf("no profile: %s %+v", got, m.Profile)
	}
	o.Discover.Agent = ""
	if m = build(t, o); m.Agent != manifest.DefaultAgent {
		t.Errorf("no agent, no profile: agent %q", m.Agent)
	}
}

// Codex loads AGENTS.md and cuts the chain at 32 KiB: ctx records the cut
// and the audit reports it with the bytes lost.
func TestProfileCodexCut(t *testing.T) {
	big := strings.Repeat("a", 30000) + "\n"
	dir := project(t, map[string]string{".git/HEAD": "", "AGENTS.md": big, "sub/AGENTS.md": strings.Repeat("b", 5000)})
	none := func(string) string { return "" }
	m := build(t, manifest.Options{
		Discover: discover.Options{ProjectDir: filepath.Join(dir, "sub"), Home: dir, SharedMode: discover.SharedDisabled, Getenv: none},
		Profile:  profile.Codex,
	})
	if got := reasons(m); !strings.HasPrefix(got, "native:AGENTS.md=native_autoload native:AGENTS.md=native_autoload") {
		t.Errorf("decisions %s", got)
	}
	p := m.Profile
	if len(p.Files) != 2 || p.Files[1].LoadedBytes != 32768-30001 || p.Files[1].CutBytes != 5000-(32768-30001) {
		t.Fatalf("files %+v", p.Files)
	}
	rep, err := audit.Run(m, audit.DefaultThresholds(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, f := range rep.Findings {
		codes = append(codes, f.SourceID[strings.LastIndex(f.SourceID, "/")+1:]+":"+string(f.Code)+":"+string(f.Severity))
	}
	if got := strings.Join(codes, " "); !strings.Contains(got, "AGENTS.md:agent_truncation:warning") {
		t.Errorf("findings %s", got)
	}
	if rep.Native.Bytes != 32768 {
		t.Errorf("native bytes %d, want the 32 KiB Codex keeps", rep.Native.Bytes)
	}
}

func TestDiscoverWithProfile(t *testing.T) {
	dir := project(t, map[string]string{"GEMINI.md": "g\n", "a/GEMINI.md": "a\n"})
	res, chain, err := manifest.Discover(context.Background(), manifest.Options{
		Discover: discover.Options{ProjectDir: dir, Home: dir, SharedMode: discover.SharedDisabled, Getenv: func(string) string { return "" }},
		Profile:  profile.Gemini,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Agent != "gemini" || len(chain.Files) != 2 || res.Sources[0].Delivery != discover.DeliveryNative ||
		!strings.Contains(res.Sources[0].NativeEvidence, "Gemini CLI") || res.Sources[0].Origin != "profile:gemini" {
		t.Errorf("agent %s, chain %+v, first %+v", res.Agent, chain, res.Sources[0])
	}
}

// A relative manifest with a profile is the same in every clone: the
// profile's ids, root and import evidence are relative too.
func TestProfileRelative(t *testing.T) {
	tree := map[string]string{".git/HEAD": "", "CLAUDE.md": "@docs/rules.md\n", "docs/rules.md": "@../CLAUDE.md\n"}
	var out [][]byte
	for i := range 2 {
		dir := project(t, tree)
		home := filepath.Join(dir, fmt.Sprintf("home%d", i))
		m := build(t, manifest.Options{
			Discover:       discover.Options{ProjectDir: dir, Home: home, SharedMode: discover.SharedDisabled, Getenv: func(string) string { return "" }},
			Profile:        profile.Claude,
			ProfileOptions: profile.Options{ManagedDir: filepath.Join(dir, "no-managed")},
			RelativePaths:  true,
		})
		b, err := manifest.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), dir) {
			t.Errorf("a host path in a relative manifest:\n%s", b)
		}
		out = append(out, b)
	}
	if string(out[0]) != string(out[1]) {
		t.Errorf("two clones differ:\n%s\n----\n%s", out[0], out[1])
	}
}

// A project in a subdirectory of its repository: the profile finds files
// above the project (the repository root's CLAUDE.md, AGENTS.md, Copilot's
// and Cursor's files), which a relative manifest records relative to the
// project with ../, so that two clones at different depths, under
// different home directories, give the same bytes.
func TestProfileRelativeSubdirectory(t *testing.T) {
	tree := map[string]string{
		".git/HEAD":                       "",
		"CLAUDE.md":                       "# Root\n@docs/team.md\n",
		"docs/team.md":                    "Team rules.\n",
		"AGENTS.md":                       "Root agents.\n",
		"GEMINI.md":                       "Root gemini.\n",
		".github/copilot-instructions.md": "Copilot.\n",
		".cursorrules":                    "Cursor.\n",
		"pkg/app/web/CLAUDE.md":           "App rules.\n",
		"pkg/app/web/AGENTS.md":           "App agents.\n",
	}
	for _, name := range []profile.Name{profile.Claude, profile.Codex, profile.Gemini, profile.Copilot, profile.Cursor} {
		var out [][]byte
		for i, layout := range []string{"clone1", "deeper/x/clone2"} {
			base := project(t, nil)
			repo := filepath.Join(base, layout)
			testfs.Write(t, repo, tree)
			home := filepath.Join(base, fmt.Sprintf("home%d", i))
			m := build(t, manifest.Options{
				Discover:       discover.Options{ProjectDir: filepath.Join(repo, "pkg/app/web"), Home: home, Getenv: func(string) string { return "" }},
				Profile:        name,
				ProfileOptions: profile.Options{ManagedDir: filepath.Join(base, "no-managed")},
				RelativePaths:  true,
			})
			b := encode(t, m)
			if strings.Contains(string(b), base) {
				t.Errorf("%s: a host path in a relative manifest:\n%s", name, b)
			}
			if m.Profile.Root != "../../.." {
				t.Errorf("%s: profile root %q, want ../../..", name, m.Profile.Root)
			}
			out = append(out, b)
		}
		if string(out[0]) != string(out[1]) {
			t.Errorf("%s: two clones differ:\n%s\n----\n%s", name, out[0], out[1])
		}
	}
}

// A relative manifest, the one a repository commits, records only the
// files of the repository: the agent's files in the home directory, the
// managed policy and the files above the repository belong to a person or
// a machine, and a teammate who has other ones would see them as drift.
// An absolute manifest records them all.
func TestProfileRelativeLeavesOutPersonalFiles(t *testing.T) {
	base := project(t, map[string]string{
		"CLAUDE.md":                   "Above the repository.\n",
		"home/.claude/CLAUDE.md":      "My preferences.\n@~/notes.md\n",
		"home/notes.md":               "My notes.\n",
		"home/.claude/rules/style.md": "My style.\n",
		"home/.gemini/GEMINI.md":      "My Gemini.\n",
		"home/.codex/AGENTS.md":       "My Codex.\n",
		"managed/CLAUDE.md":           "Policy.\n",
		"repo/.git/HEAD":              "",
		"repo/CLAUDE.md":              "Team.\n@~/.claude/mine.md\n",
		"repo/AGENTS.md":              "Team agents.\n",
		"repo/GEMINI.md":              "Team Gemini.\n",
		"repo/svc/CLAUDE.md":          "Service.\n",
	})
	home := filepath.Join(base, "home")
	for _, tc := range []struct {
		name          profile.Name
		absolute, rel int
	}{{profile.Claude, 7, 2}, {profile.Gemini, 2, 1}, {profile.Codex, 2, 1}} {
		o := manifest.Options{
			Discover:       discover.Options{ProjectDir: filepath.Join(base, "repo/svc"), Home: home, SharedMode: discover.SharedDisabled, Getenv: func(string) string { return "" }},
			Profile:        tc.name,
			ProfileOptions: profile.Options{ManagedDir: filepath.Join(base, "managed")},
		}
		abs := build(t, o)
		o.RelativePaths = true
		rel := build(t, o)
		if len(abs.Profile.Files) != tc.absolute || len(rel.Profile.Files) != tc.rel {
			t.Errorf("%s: %d files in the absolute manifest (want %d), %d in the relative one (want %d)", tc.name,
				len(abs.Profile.Files), tc.absolute, len(rel.Profile.Files), tc.rel)
		}
		b := encode(t, rel)
		for _, personal := range []string{"~/", "Policy", base} {
			if strings.Contains(string(b), personal) {
				t.Errorf("%s: the relative manifest records %q:\n%s", tc.name, personal, b)
			}
		}
		for _, s := range rel.Sources {
			if s.Delivery == discover.DeliveryNative && strings.HasPrefix(s.ID, "native:/") {
				t.Errorf("%s: native %s outside the repository", tc.name, s.ID)
			}
		}
	}
}

// A file the agent deliberately skips for another one in the same folder
// (Claude Code's AGENTS.md next to a CLAUDE.md, Codex's AGENTS.md next to
// an AGENTS.override.md) is not sent by ctx either: shadowed_by_native,
// naming the native that shadows it, and an info finding.
func TestProfileShadowed(t *testing.T) {
	for _, tc := range []struct {
		name  profile.Name
		files map[string]string
		want  string
	}{
		{profile.Claude, map[string]string{"CLAUDE.md": "Claude rules.\n", "AGENTS.md": "Agents rules.\n"},
			"native:CLAUDE.md=native_autoload project_agents=shadowed_by_native(CLAUDE.md) project_claude=native_autoload(CLAUDE.md)"},
		{profile.Codex, map[string]string{"AGENTS.override.md": "Override.\n", "AGENTS.md": "Agents rules.\n"},
			"native:AGENTS.override.md=native_autoload project_agents=shadowed_by_native(AGENTS.override.md) project_claude=missing"},
	} {
		tc.files[".git/HEAD"] = ""
		dir := project(t, tc.files)
		m := build(t, manifest.Options{
			Discover:       discover.Options{ProjectDir: dir, Home: filepath.Join(dir, "home"), SharedMode: discover.SharedDisabled, Getenv: func(string) string { return "" }},
			Profile:        tc.name,
			ProfileOptions: profile.Options{ManagedDir: filepath.Join(dir, "no-managed")},
		})
		if got := reasons(m); got != tc.want {
			t.Errorf("%s: decisions\n got  %s\nwant %s", tc.name, got, tc.want)
		}
		if text := render.Text(m); text != "" {
			t.Errorf("%s: ctx sends %q, which the agent deliberately skips", tc.name, text)
		}
		rep, err := audit.Run(m, audit.DefaultThresholds(), nil)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range rep.Findings {
			if f.SourceID == "project_agents" && f.Code == "shadowed_by_native" && f.Severity == audit.Info && strings.Contains(f.Message, "skips") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no shadowed_by_native finding in %+v", tc.name, rep.Findings)
		}
	}
}

// The audit's header and its total count the same files: those the agent
// loads in every session. A blank file, and one Codex's limit leaves
// nothing of, are listed but not counted.
func TestProfileCountsAgree(t *testing.T) {
	dir := project(t, map[string]string{
		".git/HEAD":       "",
		"AGENTS.md":       strings.Repeat("a", 40000),
		"b/AGENTS.md":     "dropped\n",
		"b/c/AGENTS.md":   "  \n",
		"b/c/d/AGENTS.md": "also dropped\n",
	})
	m := build(t, manifest.Options{
		Discover: discover.Options{ProjectDir: filepath.Join(dir, "b/c/d"), Home: filepath.Join(dir, "home"), SharedMode: discover.SharedDisabled, Getenv: func(string) string { return "" }},
		Profile:  profile.Codex,
	})
	rep, err := audit.Run(m, audit.DefaultThresholds(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Native.Files != 1 || rep.Native.Bytes != 32768 {
		t.Errorf("native %+v, want 1 file of 32,768 bytes", rep.Native)
	}
	var b strings.Builder
	if err := audit.Write(&b, rep, audit.FormatTable, audit.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"(profile codex: 1 file the agent loads by itself)", "it loads by itself (1 file)"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("the audit lacks %q:\n%s", s, b.String())
		}
	}
	var codes []string
	for _, f := range rep.Findings {
		if f.Code == audit.CodeAgentTruncation {
			codes = append(codes, filepath.Base(filepath.Dir(strings.TrimPrefix(f.SourceID, "native:"))))
		}
	}
	if got := strings.Join(codes, " "); got != "/ b d" && !strings.HasSuffix(got, " b d") {
		t.Errorf("agent_truncation on %q: the blank file lost nothing", got)
	}
}
