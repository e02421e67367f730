package audit_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/profile"
)

// The profile's findings carry their numbers and the agent's rule, and the
// codes are the profile's.
func TestProfileFindings(t *testing.T) {
	if audit.CodeAgentTruncation != audit.Code(profile.CodeAgentTruncation) || audit.CodeImportCycle != audit.Code(profile.CodeImportCycle) ||
		audit.CodeImportMissing != audit.Code(profile.CodeImportMissing) || audit.CodeImportTooDeep != audit.Code(profile.CodeImportTooDeep) ||
		audit.CodeOverAgentLimit != audit.Code(profile.CodeOverAgentLimit) {
		t.Fatal("audit and profile codes differ")
	}
	dir, err := filepath.EvalSymlinks(testfs.Tree(t, map[string]string{
		".git/HEAD":   "",
		"AGENTS.md":   strings.Repeat("a", 30000),
		"b/AGENTS.md": strings.Repeat("b", 5000),
		"b/CLAUDE.md": "@x.md and @gone/y.md\n" + strings.Repeat("c", 40001),
		"b/x.md":      "@CLAUDE.md\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	none := func(string) string { return "" }
	msgs := func(name profile.Name) []string {
		m, err := manifest.Build(context.Background(), manifest.Options{
			Discover:       discover.Options{ProjectDir: filepath.Join(dir, "b"), Home: dir, SharedMode: discover.SharedDisabled, Getenv: none},
			Profile:        name,
			ProfileOptions: profile.Options{ManagedDir: filepath.Join(dir, "none")},
		})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := audit.Run(m, audit.DefaultThresholds(), nil)
		if err != nil {
			t.Fatal(err)
		}
		doc := audit.NewDocument(rep, audit.WriteOptions{Home: "/nowhere"})
		var out []string
		for _, f := range doc.Findings {
			switch f.Code {
			case audit.CodeAgentTruncation, audit.CodeImportCycle, audit.CodeImportMissing, audit.CodeImportTooDeep, audit.CodeOverAgentLimit:
				out = append(out, string(f.Code)+" "+string(f.Severity)+": "+f.Message)
			}
		}
		return out
	}
	check := func(name profile.Name, want []string) {
		t.Helper()
		if got := msgs(name); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got  %q\nwant %q", name, got, want)
		}
	}
	check(profile.Codex, []string{
		"agent_truncation warning: the agent keeps 2,768 of 5,000 bytes, 2,232 lost: Codex's project_doc_max_bytes (32768) is shared by the project documents",
	})
	check(profile.Claude, []string{
		"import_cycle warning: imports loop: CLAUDE.md → x.md → CLAUDE.md; imports are followed once; a cycle adds nothing but is likely a mistake",
		"import_missing warning: @gone/y.md cannot be read: the agent skips an import it cannot read",
		"over_agent_limit warning: 40,022 chars, over 40,000: Claude Code warns about memory files above 40,000 characters",
	})
}

// A file the agent loads only when its condition applies says so in the
// table's decision.
func TestConditionalNativeInTable(t *testing.T) {
	dir, err := filepath.EvalSymlinks(testfs.Tree(t, map[string]string{
		".git/HEAD":        "",
		"GEMINI.md":        "# always\n",
		"pkg/GEMINI.md":    "# only in pkg\n",
		".github/x/y.yaml": "",
	}))
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Build(context.Background(), manifest.Options{
		Discover: discover.Options{ProjectDir: dir, Home: t.TempDir(), SharedMode: discover.SharedDisabled, Getenv: func(string) string { return "" }},
		Profile:  profile.Gemini,
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := audit.Run(m, audit.DefaultThresholds(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := audit.Write(&b, rep, audit.FormatTable, audit.WriteOptions{Width: 100}); err != nil {
		t.Fatal(err)
	}
	var always, conditional string
	for _, line := range strings.Split(b.String(), "\n") {
		switch {
		case strings.Contains(line, "| pkg/GEMINI.md"):
			conditional = line
		case strings.Contains(line, "| GEMINI.md"):
			always = line
		}
	}
	if !strings.Contains(conditional, "native_autoload, conditional") || strings.Contains(always, "conditional") || always == "" {
		t.Errorf("decisions:\n%s\n%s", always, conditional)
	}
}

// A package's CLAUDE.md with the root's bytes ("@AGENTS.md") is loaded
// only in its folder, where the import is another file: the same bytes are
// not sent twice, and ctx audit --check passes (a warning when both are
// loaded in every session).
func TestSameContentConditional(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(testfs.Tree(t, map[string]string{
		".git/HEAD": "", "CLAUDE.md": "@AGENTS.md\n", "AGENTS.md": "# Root\n",
		"packages/api/CLAUDE.md": "@AGENTS.md\n", "packages/api/AGENTS.md": "# API\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	m := claudeManifest(t, dir, nil)
	rep, err := audit.RunContext(context.Background(), m, audit.Options{Thresholds: audit.DefaultThresholds()})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Code == audit.Code(manifest.ReasonSameContent) && f.Severity == audit.Warning {
			t.Errorf("same_content warning for a conditional file: %+v", f)
		}
	}
	if rep.Fails(audit.Warning) {
		t.Errorf("--check fails: %+v", rep.Findings)
	}
}
