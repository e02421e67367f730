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
)

// A file nobody named (the discovered AGENTS.md and CLAUDE.md, the shared
// file at its default location) that is missing is an info finding, so
// `ctx audit --check` passes on an ordinary repository; a file named
// explicitly (a flag, AGENTS_GLOBAL_MD, shared_path, an extra, a native)
// keeps the warning. The rows themselves are the original's.
func TestMissingSeverity(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	noEnv := func(string) string { return "" }
	env := func(k string) string {
		if k == discover.SharedEnv {
			return "~/named.md"
		}
		return ""
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		opts  func(dir string) discover.Options
		want  []audit.Finding
	}{
		{"only AGENTS.md, no GLOBAL.md", map[string]string{"AGENTS.md": "rules\n"},
			func(dir string) discover.Options {
				return discover.Options{Agent: "claude", ProjectDir: dir, Home: home, Getenv: noEnv}
			},
			[]audit.Finding{{SourceID: "shared", Code: "missing", Severity: "info"}, {SourceID: "project_claude", Code: "missing", Severity: "info"}}},
		{"nothing at all", nil,
			func(dir string) discover.Options {
				return discover.Options{Agent: "claude", ProjectDir: dir, Home: home, Getenv: noEnv}
			},
			[]audit.Finding{{SourceID: "shared", Code: "missing", Severity: "info"}, {SourceID: "project_agents", Code: "missing", Severity: "info"},
				{SourceID: "project_claude", Code: "missing", Severity: "info"}}},
		{"shared file named by the environment", map[string]string{"AGENTS.md": "rules\n"},
			func(dir string) discover.Options {
				return discover.Options{Agent: "claude", ProjectDir: dir, Home: home, Getenv: env}
			},
			[]audit.Finding{{SourceID: "shared", Code: "missing", Severity: "warning"}, {SourceID: "project_claude", Code: "missing", Severity: "info"}}},
		{"shared file named by a flag or shared_path", map[string]string{"AGENTS.md": "rules\n"},
			func(dir string) discover.Options {
				return discover.Options{Agent: "claude", ProjectDir: dir, Home: home, SharedMode: discover.SharedPath, SharedPath: "g.md"}
			},
			[]audit.Finding{{SourceID: "shared", Code: "missing", Severity: "warning"}, {SourceID: "project_claude", Code: "missing", Severity: "info"}}},
		{"the default path named explicitly is named", map[string]string{"AGENTS.md": "rules\n"},
			func(dir string) discover.Options {
				return discover.Options{Agent: "claude", ProjectDir: dir, Home: home, SharedMode: discover.SharedPath, SharedPath: discover.DefaultSharedPath}
			},
			[]audit.Finding{{SourceID: "shared", Code: "missing", Severity: "warning"}, {SourceID: "project_claude", Code: "missing", Severity: "info"}}},
		{"an extra posing as AGENTS.md, and a native", nil,
			func(dir string) discover.Options {
				return discover.Options{Agent: "claude", ProjectDir: dir, Home: home, NoDiscover: true, NativePaths: []string{"N.md"},
					Extras: []discover.Extra{{ID: "project_agents", Kind: "project", Path: str(dir + "/AGENTS.md"), Scope: dir}}}
			},
			[]audit.Finding{{SourceID: "native:" + "DIR/N.md", Code: "missing", Severity: "warning"}, {SourceID: "project_agents", Code: "missing", Severity: "warning"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, err := filepath.EvalSymlinks(testfs.Tree(t, tc.files))
			if err != nil {
				t.Fatal(err)
			}
			m, err := manifest.Build(context.Background(), manifest.Options{Discover: tc.opts(dir)})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := audit.Run(m, audit.DefaultThresholds(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []audit.Finding
			for _, f := range rep.Findings {
				if f.Code == audit.CodeMissing {
					if f.SourceID == "native:"+dir+"/N.md" {
						f.SourceID = "native:DIR/N.md"
					}
					// the message says which rule applied
					want := " does not exist (named explicitly)"
					if f.Severity == audit.Info {
						want = " does not exist (a default location that nobody named)"
					}
					if !strings.HasSuffix(f.Message, want) {
						t.Errorf("%s: message %q, want one ending in %q", f.SourceID, f.Message, want)
					}
					f.Message = ""
					got = append(got, f)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("missing findings %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("finding %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
			// the rows are the original's whatever the severity
			for _, s := range m.Sources {
				if s.Status == manifest.StatusMissing && (s.Reason != manifest.ReasonNativeAutoload && s.Reason != "missing" || s.SourceBytes != nil) {
					t.Errorf("row %s: %+v", s.ID, s)
				}
			}
			if len(tc.files) > 0 && tc.name == "only AGENTS.md, no GLOBAL.md" && rep.Fails(audit.Warning) {
				t.Errorf("--check would fail on a healthy repository: %+v", rep.Findings)
			}
		})
	}
}
