package discover

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func str(s string) *string   { return &s }
func num(f float64) *float64 { return &f }
func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func ids(r *Result) []string {
	var out []string
	for _, c := range r.Sources {
		out = append(out, c.ID)
	}
	return out
}

func orders(r *Result) []float64 {
	var out []float64
	for _, c := range r.Sources {
		out = append(out, c.Order)
	}
	return out
}

func mustSources(t *testing.T, opts Options) *Result {
	t.Helper()
	r, err := Sources(context.Background(), opts)
	if err != nil {
		t.Fatalf("Sources: %v", err)
	}
	return r
}

func TestOrdering(t *testing.T) {
	t.Parallel()
	proj := realDir(t)
	home := realDir(t)
	text := func(id string, order *float64) Extra {
		return Extra{ID: id, Kind: "note", Text: str(id), Order: order}
	}
	tests := []struct {
		name       string
		opts       Options
		wantIDs    []string
		wantOrders []float64
	}{
		{
			name: "natives then discovered then extras, default positions",
			opts: Options{
				WorkspaceDir: "ws", NativePaths: []string{"N.md"},
				Extras: []Extra{text("x1", nil), text("x2", nil)},
			},
			wantIDs: []string{"native:" + proj + "/N.md", "shared", "project_agents", "project_claude",
				"workspace_user", "workspace_soul", "x1", "x2"},
			wantOrders: []float64{1, 2, 3, 4, 5, 6, 7, 8},
		},
		{
			name:       "without workspace",
			opts:       Options{Extras: []Extra{text("x1", nil)}},
			wantIDs:    []string{"shared", "project_agents", "project_claude", "x1"},
			wantOrders: []float64{1, 2, 3, 4},
		},
		{
			name:       "extra between discovered sources",
			opts:       Options{Extras: []Extra{text("x1", num(2.5)), text("x2", nil)}},
			wantIDs:    []string{"shared", "project_agents", "x1", "project_claude", "x2"},
			wantOrders: []float64{1, 2, 2.5, 3, 5},
		},
		{
			name: "ties keep list position",
			// x1 has order 2 like project_agents (position 2): project_agents stays first
			opts:       Options{Extras: []Extra{text("x1", num(2)), text("x2", num(2))}},
			wantIDs:    []string{"shared", "project_agents", "x1", "x2", "project_claude"},
			wantOrders: []float64{1, 2, 2, 2, 3},
		},
		{
			name:       "explicit zero and negative orders go first",
			opts:       Options{Extras: []Extra{text("zero", num(0)), text("neg", num(-1))}},
			wantIDs:    []string{"neg", "zero", "shared", "project_agents", "project_claude"},
			wantOrders: []float64{-1, 0, 1, 2, 3},
		},
		{
			name:       "later extra before earlier one",
			opts:       Options{SharedMode: SharedDisabled, Extras: []Extra{text("a", num(10)), text("b", num(9))}},
			wantIDs:    []string{"project_agents", "project_claude", "b", "a"},
			wantOrders: []float64{1, 2, 9, 10},
		},
		{
			name:       "a native is positioned by order too",
			opts:       Options{NoDiscover: true, NativePaths: []string{"N.md"}, Extras: []Extra{text("x", num(0.5))}},
			wantIDs:    []string{"x", "native:" + proj + "/N.md"},
			wantOrders: []float64{0.5, 1},
		},
		{
			name:       "no discover: natives and extras only",
			opts:       Options{NoDiscover: true, WorkspaceDir: "ws", SharedMode: SharedPath, SharedPath: "/g.md", Extras: []Extra{text("x", nil)}},
			wantIDs:    []string{"x"},
			wantOrders: []float64{1},
		},
		{
			name:       "shared disabled shifts positions",
			opts:       Options{SharedMode: SharedDisabled, Extras: []Extra{text("x", nil)}},
			wantIDs:    []string{"project_agents", "project_claude", "x"},
			wantOrders: []float64{1, 2, 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := tt.opts
			opts.Agent, opts.ProjectDir, opts.Home = "corteza", proj, home
			r := mustSources(t, opts)
			if got := ids(r); !reflect.DeepEqual(got, tt.wantIDs) {
				t.Errorf("ids = %q, want %q", got, tt.wantIDs)
			}
			if got := orders(r); !reflect.DeepEqual(got, tt.wantOrders) {
				t.Errorf("orders = %v, want %v", got, tt.wantOrders)
			}
		})
	}
}

func TestDiscoveredFields(t *testing.T) {
	t.Parallel()
	proj := realDir(t)
	home := realDir(t)
	r := mustSources(t, Options{Agent: "corteza", ProjectDir: proj, Home: home, WorkspaceDir: "../ws", Getenv: func(string) string { return "" }})
	ws := proj + "/../ws"
	want := []Candidate{
		{ID: "shared", Kind: "shared", Order: 1, RequestedPath: "~/.config/agents/GLOBAL.md", Path: home + "/.config/agents/GLOBAL.md",
			Audience: []string{"*"}, Delivery: "consumer", Scope: "global", Implicit: true},
		{ID: "project_agents", Kind: "project", Order: 2, RequestedPath: proj + "/AGENTS.md", Path: proj + "/AGENTS.md",
			Audience: []string{"*"}, Delivery: "consumer", Scope: proj, Implicit: true},
		{ID: "project_claude", Kind: "project", Order: 3, RequestedPath: proj + "/CLAUDE.md", Path: proj + "/CLAUDE.md",
			Audience: []string{"*"}, Delivery: "consumer", Scope: proj, Implicit: true},
		// the workspace is joined without cleaning; its scope is the
		// directory as given, since it does not exist here
		{ID: "workspace_user", Kind: "shared", Order: 4, RequestedPath: ws + "/USER.md", Path: ws + "/USER.md",
			Audience: []string{"*"}, Delivery: "consumer", Scope: ws},
		{ID: "workspace_soul", Kind: "identity", Order: 5, RequestedPath: ws + "/SOUL.md", Path: ws + "/SOUL.md",
			Audience: []string{"*"}, Delivery: "consumer", Scope: ws},
	}
	if !reflect.DeepEqual(r.Sources, want) {
		t.Errorf("sources =\n%+v\nwant\n%+v", r.Sources, want)
	}
	if r.Agent != "corteza" || r.ProjectDir != proj {
		t.Errorf("agent, project = %q, %q", r.Agent, r.ProjectDir)
	}
}

func TestWorkspaceScopeResolved(t *testing.T) {
	t.Parallel()
	proj := realDir(t)
	if err := os.Mkdir(proj+"/ws", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(proj+"/ws", proj+"/link"); err != nil {
		t.Fatal(err)
	}
	r := mustSources(t, Options{Agent: "a", ProjectDir: proj, Home: proj, SharedMode: SharedDisabled, WorkspaceDir: "./link"})
	u := r.Sources[2]
	if u.ID != "workspace_user" || u.Path != proj+"/./link/USER.md" || u.Scope != proj+"/ws" {
		t.Errorf("workspace_user = %+v, want path %s/./link/USER.md and scope %s/ws", u, proj, proj)
	}
}

// TestSharedPath covers every way the shared file is located.
func TestSharedPath(t *testing.T) {
	t.Parallel()
	proj := realDir(t)
	home := "/home/tester"
	tests := []struct {
		name     string
		mode     SharedMode
		path     string
		getenv   func(string) string
		wantReq  string
		wantPath string
		absent   bool
	}{
		{name: "flag absolute", mode: SharedPath, path: "/etc/agents/G.md", wantReq: "/etc/agents/G.md", wantPath: "/etc/agents/G.md"},
		{name: "flag relative joins project unclean", mode: SharedPath, path: "../GLOBAL.md", wantReq: "../GLOBAL.md", wantPath: proj + "/../GLOBAL.md"},
		{name: "flag dot relative", mode: SharedPath, path: "./g.md", wantReq: "./g.md", wantPath: proj + "/./g.md"},
		{name: "flag tilde", mode: SharedPath, path: "~/g.md", wantReq: "~/g.md", wantPath: home + "/g.md"},
		{name: "flag wins over env", mode: SharedPath, path: "/flag.md", getenv: env(map[string]string{"AGENTS_GLOBAL_MD": "/env.md"}),
			wantReq: "/flag.md", wantPath: "/flag.md"},
		{name: "env var", getenv: env(map[string]string{"AGENTS_GLOBAL_MD": "/env/G.md"}), wantReq: "/env/G.md", wantPath: "/env/G.md"},
		{name: "env var relative", getenv: env(map[string]string{"AGENTS_GLOBAL_MD": "g.md"}), wantReq: "g.md", wantPath: proj + "/g.md"},
		{name: "env var tilde", getenv: env(map[string]string{"AGENTS_GLOBAL_MD": "~/x/G.md"}), wantReq: "~/x/G.md", wantPath: home + "/x/G.md"},
		{name: "empty env var uses default", getenv: env(map[string]string{"AGENTS_GLOBAL_MD": ""}),
			wantReq: "~/.config/agents/GLOBAL.md", wantPath: home + "/.config/agents/GLOBAL.md"},
		{name: "unset env var uses default", getenv: env(nil),
			wantReq: "~/.config/agents/GLOBAL.md", wantPath: home + "/.config/agents/GLOBAL.md"},
		{name: "nil Getenv reads no environment", wantReq: "~/.config/agents/GLOBAL.md", wantPath: home + "/.config/agents/GLOBAL.md"},
		{name: "disabled", mode: SharedDisabled, getenv: env(map[string]string{"AGENTS_GLOBAL_MD": "/env.md"}), absent: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := mustSources(t, Options{Agent: "a", ProjectDir: proj, Home: home, SharedMode: tt.mode, SharedPath: tt.path, Getenv: tt.getenv})
			if tt.absent {
				if got := ids(r); !reflect.DeepEqual(got, []string{"project_agents", "project_claude"}) {
					t.Errorf("ids = %q, want no shared source", got)
				}
				return
			}
			s := r.Sources[0]
			if s.ID != "shared" || s.Kind != "shared" || s.Scope != "global" || s.Order != 1 {
				t.Fatalf("first source = %+v, want the shared source", s)
			}
			if s.RequestedPath != tt.wantReq || s.Path != tt.wantPath {
				t.Errorf("requested_path, path = %q, %q; want %q, %q", s.RequestedPath, s.Path, tt.wantReq, tt.wantPath)
			}
		})
	}
}

// TestSharedPathFromProcessEnv checks the environment as the command passes
// it (Getenv: os.Getenv), with HOME and AGENTS_GLOBAL_MD set for the test.
func TestSharedPathFromProcessEnv(t *testing.T) {
	proj := realDir(t)
	home := realDir(t)
	t.Setenv("HOME", home)
	t.Setenv("AGENTS_GLOBAL_MD", "")
	r := mustSources(t, Options{Agent: "a", ProjectDir: proj, Home: os.Getenv("HOME"), Getenv: os.Getenv})
	if s := r.Sources[0]; s.RequestedPath != DefaultSharedPath || s.Path != home+"/.config/agents/GLOBAL.md" {
		t.Errorf("empty AGENTS_GLOBAL_MD: shared = %q, %q", s.RequestedPath, s.Path)
	}
	t.Setenv("AGENTS_GLOBAL_MD", "~/G.md")
	r = mustSources(t, Options{Agent: "a", ProjectDir: proj, Home: os.Getenv("HOME"), Getenv: os.Getenv})
	if s := r.Sources[0]; s.RequestedPath != "~/G.md" || s.Path != home+"/G.md" {
		t.Errorf("AGENTS_GLOBAL_MD=~/G.md: shared = %q, %q", s.RequestedPath, s.Path)
	}
}

func TestExtraPaths(t *testing.T) {
	t.Parallel()
	proj := realDir(t)
	home := "/home/tester"
	tests := []struct {
		req, want string
	}{
		{"notes/a.md", proj + "/notes/a.md"},
		{"./first.md", proj + "/./first.md"},
		{"../up.md", proj + "/../up.md"},
		{"/abs/x.md", "/abs/x.md"},
		{"/abs/./x.md", "/abs/./x.md"},
		{"~/mem.md", home + "/mem.md"},
		{"~", home},
		{"~other/x.md", proj + "/~other/x.md"},
	}
	for _, tt := range tests {
		r := mustSources(t, Options{Agent: "a", ProjectDir: proj, Home: home, NoDiscover: true,
			Extras: []Extra{{ID: "e", Kind: "k", Path: str(tt.req)}}})
		c := r.Sources[0]
		if c.RequestedPath != tt.req || c.Path != tt.want || c.IsText() {
			t.Errorf("path %q: requested %q, path %q, want %q", tt.req, c.RequestedPath, c.Path, tt.want)
		}
	}
}

func TestExtraFields(t *testing.T) {
	t.Parallel()
	proj := realDir(t)
	r := mustSources(t, Options{Agent: "a", ProjectDir: proj, Home: proj, NoDiscover: true, Extras: []Extra{
		{ID: "full", Kind: "memory", Text: str("A note."), Order: num(2.5), Audience: []string{"claude", "codex"},
			Delivery: "hook", Origin: "cli", Scope: "session", ConfigPath: "ctx.toml", NativeEvidence: "ev"},
		{ID: "bare", Kind: "memory", Text: str("")},
	}})
	want := []Candidate{
		{ID: "bare", Kind: "memory", Order: 2, Text: str(""), Audience: []string{"*"}, Delivery: "consumer"},
		{ID: "full", Kind: "memory", Order: 2.5, Text: str("A note."), Audience: []string{"claude", "codex"},
			Delivery: "hook", Origin: "cli", Scope: "session", ConfigPath: "ctx.toml", NativeEvidence: "ev"},
	}
	if !reflect.DeepEqual(r.Sources, want) {
		t.Errorf("sources =\n%+v\nwant\n%+v", r.Sources, want)
	}
	if !r.Sources[0].IsText() {
		t.Errorf("text source: IsText false")
	}
}

func TestNatives(t *testing.T) {
	t.Parallel()
	proj := realDir(t)
	home := realDir(t)
	if err := os.WriteFile(proj+"/AGENTS.md", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(proj+"/AGENTS.md", proj+"/LINK.md"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(home+"/H.md", []byte("h"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustSources(t, Options{Agent: "a", ProjectDir: proj, Home: home, NoDiscover: true, NativePaths: []string{
		"AGENTS.md", "./AGENTS.md", proj + "/AGENTS.md", "LINK.md", // one file, first spelling kept
		"absent.md", "./absent.md", "absent.md", // missing files are not canonicalised: two natives
		"~/H.md", home + "/H.md",
	}})
	want := []Candidate{
		{ID: "native:" + proj + "/AGENTS.md", Kind: "native", Order: 1, RequestedPath: "AGENTS.md", Path: proj + "/AGENTS.md",
			Audience: []string{"*"}, Delivery: "native", NativeEvidence: "native_paths argument"},
		{ID: "native:" + proj + "/absent.md", Kind: "native", Order: 2, RequestedPath: "absent.md", Path: proj + "/absent.md",
			Audience: []string{"*"}, Delivery: "native", NativeEvidence: "native_paths argument"},
		{ID: "native:" + proj + "/./absent.md", Kind: "native", Order: 3, RequestedPath: "./absent.md", Path: proj + "/./absent.md",
			Audience: []string{"*"}, Delivery: "native", NativeEvidence: "native_paths argument"},
		{ID: "native:" + home + "/H.md", Kind: "native", Order: 4, RequestedPath: "~/H.md", Path: home + "/H.md",
			Audience: []string{"*"}, Delivery: "native", NativeEvidence: "native_paths argument"},
	}
	if !reflect.DeepEqual(r.Sources, want) {
		t.Errorf("natives =\n%+v\nwant\n%+v", r.Sources, want)
	}
}

func TestProjectDir(t *testing.T) {
	base := realDir(t)
	if err := os.Mkdir(base+"/real", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(base+"/real", base+"/link"); err != nil {
		t.Fatal(err)
	}
	t.Chdir(base)
	tests := []struct{ in, want string }{
		{base + "/link", base + "/real"},           // symlinks resolved
		{"link", base + "/real"},                   // relative made absolute
		{base + "/real/../link", base + "/real"},   // cleaned
		{"~/real", base + "/real"},                 // ~ expanded
		{base + "/absent/./x", base + "/absent/x"}, // a missing directory is made absolute and cleaned
	}
	for _, tt := range tests {
		got, err := ProjectDir(tt.in, base)
		if err != nil || got != tt.want {
			t.Errorf("ProjectDir(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
		r, err := Sources(context.Background(), Options{Agent: "a", ProjectDir: tt.in, Home: base, SharedMode: SharedDisabled})
		if err != nil || r.ProjectDir != tt.want || r.Sources[0].Path != tt.want+"/AGENTS.md" {
			t.Errorf("Sources(project %q): %v, %+v", tt.in, err, r)
		}
	}
}

func TestCanonicalAndJoin(t *testing.T) {
	t.Parallel()
	d := realDir(t)
	if err := os.WriteFile(d+"/f", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(d+"/f", d+"/l"); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		d + "/./f":                           d + "/f",
		d + "/l":                             d + "/f",
		d + "/x/../f":                        d + "/x/../f", // x is missing: not resolved
		d + "/./gone":                        d + "/./gone", // missing: returned unchanged
		d + "/../" + filepath.Base(d) + "/f": d + "/f",
	} {
		if got := Canonical(in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
	for _, tt := range []struct{ base, p, want string }{
		{"/p", "a", "/p/a"}, {"/p/", "a", "/p/a"}, {"/p", "./a", "/p/./a"}, {"/p", "/q", "/q"},
		{"/p", "~", "/h"}, {"/p", "~/a", "/h/a"},
	} {
		if got := Join(tt.base, "/h", tt.p); got != tt.want {
			t.Errorf("Join(%q, /h, %q) = %q, want %q", tt.base, tt.p, got, tt.want)
		}
	}
}

func TestBlank(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"": true, " \t\r\n": true, "\f": false, "\u00a0": false, "x": false, " x ": false,
	} {
		if got := Blank(s); got != want {
			t.Errorf("Blank(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestInvalid covers the validation errors of the reference that discovery
// sees, each with its message.
func TestInvalid(t *testing.T) {
	t.Parallel()
	proj := realDir(t)
	ok := func(id string) Extra { return Extra{ID: id, Kind: "k", Text: str("t")} }
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{"empty agent", Options{Agent: ""}, "agent: must not be empty"},
		{"blank agent", Options{Agent: " \t\r\n"}, "agent: must not be empty"},
		{"empty project_dir", Options{Agent: "a", ProjectDir: " "}, "project_dir: must not be empty"},
		{"empty native path", Options{NativePaths: []string{"a.md", "  "}}, "native_paths[1]: must not be empty"},
		{"empty shared path", Options{SharedMode: SharedPath, SharedPath: " "}, "shared_path: must not be empty"},
		{"empty id", Options{Extras: []Extra{{ID: "", Kind: "k", Text: str("t")}}}, "sources[0].id: must not be empty"},
		{"empty kind", Options{Extras: []Extra{ok("x"), {ID: "y", Kind: "\t", Text: str("t")}}}, "sources[1].kind: must not be empty"},
		{"empty path", Options{Extras: []Extra{{ID: "x", Kind: "k", Path: str("")}}}, "sources[0].path: must not be empty"},
		{"both path and text", Options{Extras: []Extra{{ID: "x", Kind: "k", Path: str("a"), Text: str("t")}}}, "sources[0]: set exactly one of path and text"},
		{"neither path nor text", Options{Extras: []Extra{{ID: "x", Kind: "k"}}}, "sources[0]: set exactly one of path and text"},
		{"text not UTF-8", Options{Extras: []Extra{{ID: "x", Kind: "k", Text: str("a\xffb")}}}, "sources[0].text: must be valid UTF-8"},
		{"empty audience entry", Options{Extras: []Extra{{ID: "x", Kind: "k", Text: str("t"), Audience: []string{"claude", ""}}}}, "sources[0].audience[1]: must not be empty"},
		{"empty audience list", Options{Extras: []Extra{{ID: "x", Kind: "k", Text: str("t"), Audience: []string{}}}}, "sources[0].audience: must not be an empty list"},
		{"bad delivery", Options{Extras: []Extra{{ID: "x", Kind: "k", Text: str("t"), Delivery: "push"}}}, `sources[0].delivery: must be consumer, hook or native, not "push"`},
		{"NaN order", Options{Extras: []Extra{{ID: "x", Kind: "k", Text: str("t"), Order: num(math.NaN())}}}, "sources[0].order: must be a finite number"},
		{"infinite order", Options{Extras: []Extra{{ID: "x", Kind: "k", Text: str("t"), Order: num(math.Inf(-1))}}}, "sources[0].order: must be a finite number"},
		{"duplicate extra ids", Options{Extras: []Extra{ok("x"), ok("y"), {ID: "x", Kind: "k", Text: str("t"), Where: "ctx.toml:9"}}},
			`ctx.toml:9: sources[2].id: duplicate source id "x"`},
		{"extra id equals a discovered id", Options{Extras: []Extra{ok("project_claude")}}, `sources[0].id: duplicate source id "project_claude"`},
		{"extra id equals a native's generated id", Options{NativePaths: []string{"N.md"}, NoDiscover: true, Extras: []Extra{ok("native:" + proj + "/N.md")}},
			`sources[0].id: duplicate source id "native:` + proj + `/N.md"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := tt.opts
			if tt.name != "empty agent" && tt.name != "blank agent" {
				opts.Agent = "a"
			}
			if opts.ProjectDir == "" {
				opts.ProjectDir = proj
			}
			opts.Home = proj
			r, err := Sources(context.Background(), opts)
			if err == nil {
				t.Fatalf("Sources succeeded with %q, want error %q", ids(r), tt.wantErr)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("error = %q, want %q", err, tt.wantErr)
			}
			var de *Error
			if !errors.As(err, &de) {
				t.Errorf("error %T is not a *discover.Error", err)
			}
		})
	}
}

func TestCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Sources(ctx, Options{Agent: "a", ProjectDir: t.TempDir()}); !errors.Is(err, context.Canceled) {
		t.Errorf("Sources with a canceled context: %v, want context.Canceled", err)
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	proj := realDir(t)
	opts := Options{Agent: "a", ProjectDir: proj, Home: proj, WorkspaceDir: "ws", NativePaths: []string{"b", "a"},
		Extras: []Extra{{ID: "z", Kind: "k", Text: str("1"), Order: num(1)}, {ID: "y", Kind: "k", Text: str("2"), Order: num(1)}}}
	first := mustSources(t, opts)
	for range 5 {
		if again := mustSources(t, opts); !reflect.DeepEqual(first, again) {
			t.Fatalf("Sources differs between runs:\n%+v\n%+v", first, again)
		}
	}
	if got := strings.Join(ids(first), ","); !strings.HasPrefix(got, "native:"+proj+"/b,z,y,") {
		t.Errorf("ids = %s", got)
	}
}

// Empty options get the process's defaults: the home directory (looked up
// only when a path needs it), the environment, the working directory.
func TestProcessDefaults(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv(SharedEnv, "~/shared.md")
	t.Chdir(proj)
	res, err := Sources(context.Background(), Options{Agent: "a"})
	if err != nil {
		t.Fatal(err)
	}
	wantProj, _ := filepath.EvalSymlinks(proj)
	if res.ProjectDir != wantProj || res.Sources[0].ID != IDShared || res.Sources[0].Path != home+"/shared.md" ||
		res.Sources[0].RequestedPath != "~/shared.md" {
		t.Errorf("defaults: project %s, first %+v", res.ProjectDir, res.Sources[0])
	}
}

func TestTildeWithoutHome(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", "") // os.UserHomeDir fails: no home to fall back on
	for _, opts := range []Options{
		{Agent: "a", ProjectDir: dir, SharedMode: SharedUnset},
		{Agent: "a", ProjectDir: dir, SharedMode: SharedDisabled, NativePaths: []string{"~/x.md"}},
		{Agent: "a", ProjectDir: dir, SharedMode: SharedPath, SharedPath: "~/g.md"},
	} {
		_, err := Sources(context.Background(), opts)
		if err == nil || !strings.Contains(err.Error(), "home directory is unknown") {
			t.Errorf("%+v: got %v, want a no-home error", opts, err)
		}
	}
	if _, err := Sources(context.Background(), Options{Agent: "a", ProjectDir: dir, SharedMode: SharedDisabled}); err != nil {
		t.Errorf("no ~ anywhere: %v", err)
	}
}
