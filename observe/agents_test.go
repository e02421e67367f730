package observe_test

// The profiles held against the real agents. Each fixture of
// testdata/agents (a project tree, a home directory, the folder the agent
// starts in) has, for each agent it names, a golden file of what that agent
// really sent: the instruction files of its first turn, whole or cut.
//
//   - TestProfilesMatchAgents holds ctx's prediction (package profile)
//     against the goldens, offline: every rule of a profile that disagrees
//     with the real agent fails it.
//   - TestRealAgents runs the pinned agents (claude, codex, gemini, from
//     $CTX_AGENTS_DIR or PATH, each at the version of its golden) through
//     observe in mock mode on each fixture and compares what they send
//     with the goldens; CTX_UPDATE=1 writes the goldens from them.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctxaudit/ctx/internal/goldenfile"
	"github.com/ctxaudit/ctx/internal/testlane"
	"github.com/ctxaudit/ctx/observe"
	"github.com/ctxaudit/ctx/profile"
)

// runs says how each agent is run headless against the mock.
var runs = map[observe.Agent]struct {
	pkg  string
	args []string
	env  []string
}{
	observe.Claude: {"@anthropic-ai/claude-code", []string{"claude", "-p", "hi"},
		[]string{"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"}},
	observe.Codex:  {"@openai/codex", []string{"codex", "exec", "--skip-git-repo-check", "-m", "gpt-5", "hi"}, nil},
	observe.Gemini: {"@google/gemini-cli", []string{"gemini", "-p", "hi", "-m", "gemini-2.5-flash"}, []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}},
}

// pinnedVersions reads testdata/agents/pinned.txt: the version of each
// agent's package the goldens were recorded with, which .ci/run installs.
func pinnedVersions(t *testing.T) map[observe.Agent]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "agents", "pinned.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[observe.Agent]string{}
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, '@')
		for a, r := range runs {
			if line[:i] == r.pkg {
				out[a] = line[i+1:]
			}
		}
	}
	for a := range runs {
		if out[a] == "" {
			t.Fatalf("pinned.txt names no version of %s", runs[a].pkg)
		}
	}
	return out
}

// The versions pinned are the versions the profiles say they were checked
// against.
func TestPinnedIsChecked(t *testing.T) {
	names := map[observe.Agent]string{observe.Claude: "Claude Code", observe.Codex: "Codex CLI", observe.Gemini: "Gemini CLI"}
	for a, v := range pinnedVersions(t) {
		if got, want := profile.CheckedAgainst(profile.Name(a)), names[a]+" "+v; got != want {
			t.Errorf("profile %s says it was checked against %q, pinned.txt has %q", a, got, want)
		}
	}
}

// fixture is a tree of testdata/agents.
type fixture struct {
	name   string
	about  string
	agents []observe.Agent
	cwd    string // relative to the project
	git    bool
	files  map[string]string // "project/...", "home/...", or the test's root
}

func loadFixtures(t *testing.T) []fixture {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "agents", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	var out []fixture
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f := fixture{name: strings.TrimSuffix(filepath.Base(p), ".txtar"), about: strings.TrimSpace(string(a.Comment)), git: true, files: map[string]string{}}
		for _, file := range a.Files {
			switch file.Name {
			case "agents":
				for _, n := range strings.Fields(string(file.Data)) {
					ag, err := observe.ParseAgent(n)
					if err != nil {
						t.Fatalf("%s: %v", p, err)
					}
					f.agents = append(f.agents, ag)
				}
			case "cwd":
				f.cwd = strings.TrimSpace(string(file.Data))
			case "nogit":
				f.git = false
			default:
				f.files[file.Name] = string(file.Data)
			}
		}
		out = append(out, f)
	}
	return out
}

// tree is a fixture written out: the project, the home directory, and the
// folder the agent starts in.
type tree struct {
	root, project, home, dir string
}

func (f fixture) write(t *testing.T) tree {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := tree{root: root, project: filepath.Join(root, "project"), home: filepath.Join(root, "home")}
	tr.dir = filepath.Join(tr.project, filepath.FromSlash(f.cwd))
	for _, d := range []string{tr.project, tr.home, tr.dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range f.files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".json") {
			// an agent's settings name the tree's folders
			data = strings.NewReplacer("$PROJECT", tr.project, "$HOME", tr.home).Replace(data)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if f.git {
		if out, err := exec.Command("git", "init", "-q", tr.project).CombinedOutput(); err != nil {
			t.Skipf("git init: %v %s", err, out)
		}
	}
	return tr
}

// golden is what an agent sent in the first turn of a fixture.
type golden struct {
	Agent   observe.Agent `json:"agent"`
	Version string        `json:"version"`
	// Sent lists the instruction and memory files in the order the
	// request holds them: $PROJECT/... or $HOME/..., and "whole", "cut at
	// N" or "changed"; a text no file explains has Path "" and Name.
	Sent []goldenFile `json:"sent"`
}

type goldenFile struct {
	Path string `json:"path"`
	Name string `json:"name,omitempty"`
	Sent string `json:"sent"`
}

func goldenPath(f fixture, a observe.Agent) string {
	return filepath.Join("testdata", "agents", f.name+"."+string(a)+".json")
}

// placeholders writes paths of the tree as $PROJECT, $HOME and $ROOT.
func (tr tree) placeholders(p string) string {
	for _, r := range []struct{ dir, name string }{{tr.project, "$PROJECT"}, {tr.home, "$HOME"}, {tr.root, "$ROOT"}} {
		if p == r.dir || strings.HasPrefix(p, r.dir+string(filepath.Separator)) {
			return r.name + filepath.ToSlash(strings.TrimPrefix(p, r.dir))
		}
	}
	return p
}

func (tr tree) expand(p string) string {
	for _, r := range []struct{ dir, name string }{{tr.project, "$PROJECT"}, {tr.home, "$HOME"}, {tr.root, "$ROOT"}} {
		if rest, ok := strings.CutPrefix(p, r.name); ok {
			return r.dir + filepath.FromSlash(rest)
		}
	}
	return p
}

var cutAt = regexp.MustCompile(`^cut at (\d+)$`)

// request turns a golden into the request it stands for, for Compare.
func (tr tree) request(g golden) *observe.Request {
	r := &observe.Request{Seq: 1}
	for _, f := range g.Sent {
		s := observe.Segment{Kind: observe.KindInstruction, Name: f.Name}
		if f.Path != "" {
			sf := &observe.SentFile{Path: tr.expand(f.Path), Status: f.Sent}
			if m := cutAt.FindStringSubmatch(f.Sent); m != nil {
				var n int
				fmt.Sscan(m[1], &n)
				sf.Status, sf.CutAt = observe.SentCut, &n
			}
			s.File = sf
		}
		r.Segments = append(r.Segments, s)
	}
	return r
}

// predict returns ctx's chain for the agent in the tree.
func (tr tree) predict(t *testing.T, a observe.Agent) *profile.Chain {
	t.Helper()
	chain, err := profile.Load(context.Background(), profile.Name(a), profile.Options{Dir: tr.dir, Home: tr.home,
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return chain
}

// comparisonTable shows a comparison in the test's log.
func comparisonTable(tr tree, c *observe.Comparison) string {
	var b strings.Builder
	for _, f := range c.Files {
		fmt.Fprintf(&b, "  %-50s predicted %-28s sent %-14s %s\n", tr.placeholders(f.Path), f.Predicted, f.Sent, f.Outcome)
	}
	return b.String()
}

func readGolden(t *testing.T, p string) (golden, bool) {
	t.Helper()
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return golden{}, false
	}
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return g, true
}

// TestProfilesMatchAgents: what ctx predicts each agent loads by itself
// is what the agent sent, in every fixture.
func TestProfilesMatchAgents(t *testing.T) {
	for _, f := range loadFixtures(t) {
		for _, a := range f.agents {
			t.Run(f.name+"/"+string(a), func(t *testing.T) {
				g, ok := readGolden(t, goldenPath(f, a))
				if !ok {
					t.Skipf("no golden yet: run TestRealAgents with CTX_UPDATE=1 and the agents installed")
				}
				if want := pinnedVersions(t)[a]; g.Version != want {
					t.Errorf("the golden was recorded with %s %s, not the pinned %s", a, g.Version, want)
				}
				tr := f.write(t)
				c := observe.Compare(tr.predict(t, a), tr.request(g))
				if c.Differs {
					t.Errorf("%s (%s): the profile differs from what %s %s sent:\n%s", f.name, f.about, a, g.Version, comparisonTable(tr, c))
				}
			})
		}
	}
}

// agentsDir is where the pinned agents are: $CTX_AGENTS_DIR (a
// node_modules/.bin), else PATH.
func agentProgram(t *testing.T, a observe.Agent) string {
	t.Helper()
	name := runs[a].args[0]
	if d := os.Getenv("CTX_AGENTS_DIR"); d != "" {
		// .ci/run installed the pinned agents there: one missing is a
		// failure, not a reason to skip
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("CTX_AGENTS_DIR=%s has no %s: %v", d, name, err)
		}
		return p
	}
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed (.ci/run installs %s@%s with npm into $CTX_AGENTS_DIR)", name, runs[a].pkg, pinnedVersions(t)[a])
	}
	return p
}

var seenVersions sync.Map // program → its --version

// checkVersion skips the test unless the program is the pinned version;
// with CTX_AGENTS_DIR set (the pinned agents installed) it fails instead.
func checkVersion(t *testing.T, a observe.Agent, program, version string) {
	t.Helper()
	v, ok := seenVersions.Load(program)
	if !ok {
		out, err := exec.Command(program, "--version").CombinedOutput()
		if err != nil {
			skipOrFail(t, "%s --version: %v %s", program, err, out)
		}
		v, _ = seenVersions.LoadOrStore(program, string(out))
	}
	if !strings.Contains(v.(string), version) {
		skipOrFail(t, "%s is %q, not the pinned %s", program, strings.TrimSpace(v.(string)), version)
	}
}

// skipOrFail skips the test, or fails it when CTX_AGENTS_DIR says the
// pinned agents were installed.
func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CTX_AGENTS_DIR") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// TestRealAgents runs each pinned agent on each fixture through observe in
// mock mode, and compares the files it sent with its golden.
func TestRealAgents(t *testing.T) {
	testlane.Program(t, "runs the real agents")
	update := goldenfile.Update()
	versions := pinnedVersions(t)
	for _, f := range loadFixtures(t) {
		for _, a := range f.agents {
			t.Run(f.name+"/"+string(a), func(t *testing.T) {
				t.Parallel()
				program := agentProgram(t, a)
				checkVersion(t, a, program, versions[a])
				tr := f.write(t)
				if a == observe.Gemini {
					writeGeminiAuth(t, tr.home)
				}
				pin := runs[a]
				args := append([]string{program}, pin.args[1:]...)
				env := append([]string{"HOME=" + tr.home, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "LANG=C.UTF-8",
					"TMPDIR=" + tr.root}, pin.env...)
				chain := tr.predict(t, a)
				var given []string
				for _, cf := range chain.Files {
					given = append(given, cf.Path)
				}
				var stdout, stderr bytes.Buffer
				rec, state, err := observe.RunSession(context.Background(), observe.SessionOptions{Agent: a, Command: args,
					Dir: tr.dir, Env: env, Stdout: &stdout, Stderr: &stderr, Mock: true,
					Files: observe.NewFiles(tr.dir, chain.Root, tr.home, given)})
				if err != nil {
					t.Fatal(err)
				}
				turn := rec.Turn()
				if !state.Success() || turn == nil {
					t.Fatalf("%s exited %v with %d requests\nstdout: %s\nstderr: %s", a, state, len(rec.Requests), stdout.String(), stderr.String())
				}
				sum := 0
				for _, s := range turn.Segments {
					sum += s.Bytes
				}
				if sum != turn.Bytes {
					t.Errorf("the segments add up to %d bytes, the request is %d", sum, turn.Bytes)
				}
				got := golden{Agent: a, Version: versions[a]}
				for _, s := range turn.Segments {
					if s.Kind != observe.KindInstruction && s.Kind != observe.KindMemory {
						continue
					}
					if s.File == nil {
						got.Sent = append(got.Sent, goldenFile{Name: s.Name, Sent: "text of no file"})
						continue
					}
					sent := s.File.Status
					if sent == observe.SentCut {
						sent = fmt.Sprintf("cut at %d", *s.File.CutAt)
					}
					got.Sent = append(got.Sent, goldenFile{Path: tr.placeholders(s.File.Path), Sent: sent})
				}
				p := goldenPath(f, a)
				if update {
					b, _ := json.MarshalIndent(got, "", "  ")
					if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, ok := readGolden(t, p)
				if !ok {
					t.Fatalf("no golden %s: run with CTX_UPDATE=1", p)
				}
				if !slices.Equal(got.Sent, want.Sent) {
					t.Errorf("%s %s sent other files than its golden %s:\n got %+v\nwant %+v", a, versions[a], p, got.Sent, want.Sent)
				}
			})
		}
	}
}

// writeGeminiAuth selects API-key auth in the home's Gemini CLI settings
// unless the fixture has settings of its own: Gemini CLI refuses a base
// URL under any other auth.
func writeGeminiAuth(t *testing.T, home string) {
	t.Helper()
	p := filepath.Join(home, ".gemini", "settings.json")
	if _, err := os.Stat(p); err == nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestObserveThisRepository runs the real Claude Code in this repository
// (ctx observe --mock -- claude -p hi): the segments add up to the
// request, this repository's CLAUDE.md is attributed whole, and the
// prediction matches what was sent.
func TestObserveThisRepository(t *testing.T) {
	testlane.Program(t, "runs the real Claude Code")
	program := agentProgram(t, observe.Claude)
	checkVersion(t, observe.Claude, program, pinnedVersions(t)[observe.Claude])
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	chain, err := profile.Load(context.Background(), profile.Claude, profile.Options{Dir: repo, Home: home, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	var given []string
	for _, f := range chain.Files {
		given = append(given, f.Path)
	}
	env := append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=dumb"}, runs[observe.Claude].env...)
	var stdout, stderr bytes.Buffer
	rec, state, err := observe.RunSession(context.Background(), observe.SessionOptions{Command: []string{program, "-p", "hi"},
		Dir: repo, Env: env, Stdout: &stdout, Stderr: &stderr, Mock: true, Files: observe.NewFiles(repo, chain.Root, home, given)})
	if err != nil {
		t.Fatal(err)
	}
	turn := rec.Turn()
	if !state.Success() || turn == nil {
		t.Fatalf("claude exited %v: %s %s", state, stdout.String(), stderr.String())
	}
	sum, kinds := 0, map[observe.Kind]int{}
	for _, s := range turn.Segments {
		sum += s.Bytes
		kinds[s.Kind] += s.Bytes
	}
	if sum != turn.Bytes {
		t.Errorf("the segments add up to %d bytes, the request is %d", sum, turn.Bytes)
	}
	for _, k := range []observe.Kind{observe.KindSystemPrompt, observe.KindTool, observe.KindInstruction, observe.KindPrompt} {
		if kinds[k] == 0 {
			t.Errorf("no %s in the request: %v", k, kinds)
		}
	}
	found := false
	for _, f := range turn.SentFiles() {
		if f.Path == filepath.Join(repo, "CLAUDE.md") && f.Status == observe.SentWhole {
			found = true
		}
	}
	if !found {
		t.Errorf("CLAUDE.md of the repository is not among the files sent whole: %+v", turn.SentFiles())
	}
	if c := observe.Compare(chain, turn); c.Differs {
		t.Errorf("the prediction differs:\n%+v", c.Files)
	}
	t.Logf("%d bytes, %d tokens: %v", turn.Bytes, turn.Tokens, kinds)
}
