package aggregate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/measure"
)

// ignoreProject is a project tree with something of every default group.
func ignoreProject(t *testing.T) string {
	return tree(t, map[string]string{
		"src/app.py":                    "def run():\n    return 1\n",
		"src/.gitignore":                "generated.py\n",
		"src/generated.py":              "G = 1\n",
		"src/go.sum":                    "m v1 h1:x=\n",
		"README.md":                     "# Demo\n",
		".env":                          "TOKEN=secret\n",
		".env.production":               "TOKEN=prod\n",
		".env.example":                  "TOKEN=\n",
		"uv.lock":                       "version = 1\n",
		"web/package-lock.json":         "{}\n",
		"web/yarn.lock":                 "# yarn\n",
		"web/node_modules/x/index.js":   "x\n",
		"web/dist/app.js":               "kept: /dist/ is anchored to the base\n",
		"dist/app.js":                   "built\n",
		"keys/id_ed25519":               "key\n",
		"keys/id_ed25519.pub":           "public key\n",
		"keys/tls.key":                  "key\n",
		".npmrc":                        "//r/:_authToken=x\n",
		".venv/lib/site.py":             "v\n",
		"pkg/__pycache__/m.cpython.pyc": "c\n",
		"target/debug/app":              "bin\n",
		".hg/store":                     "hg\n",
		"logs/run.log":                  "log\n",
	})
}

func TestDefaultIgnores(t *testing.T) {
	dir := ignoreProject(t)
	wantKept := ".env.example README.md keys/id_ed25519.pub src/.gitignore src/app.py web/dist/app.js"
	wantIgnored := ".env .env.production .hg/ .npmrc .venv/ dist/ keys/id_ed25519 keys/tls.key logs/run.log " +
		"pkg/__pycache__/ src/go.sum target/ uv.lock web/node_modules/ web/package-lock.json web/yarn.lock"
	for _, entry := range []string{".", "**", "**/*"} {
		res, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: entry}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(labels(res.Items), " "); got != wantKept {
			t.Errorf("%q: kept %s\nwant %s", entry, got, wantKept)
		}
		var ignored []string
		for _, p := range res.Ignored {
			ignored = append(ignored, p.Shown())
		}
		if got := strings.Join(ignored, " "); got != wantIgnored {
			t.Errorf("%q: ignored %s\nwant %s", entry, got, wantIgnored)
		}
		if res.Summary().Ignored != len(res.Ignored) {
			t.Errorf("summary counts %d ignored", res.Summary().Ignored)
		}
	}
	// the pattern behind each, for --format json
	res, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "."}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Ignored {
		if p.Path == ".env.production" && p.Pattern != ".env.*" || p.Path == "dist" && (p.Pattern != "/dist/" || !p.Dir) {
			t.Errorf("%+v", p)
		}
	}
	// a glob lists only what it would have taken
	res, err = Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "web/*.*"}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.Ignored {
		got = append(got, p.Shown()+" "+p.Pattern)
	}
	if got := fmt.Sprint(labels(res.Items), got); got != "[web/*.*] [web/package-lock.json package-lock.json web/yarn.lock yarn.lock]" {
		t.Errorf("web/*.*: %s", got)
	}
}

func TestIgnorePatternsAndSwitch(t *testing.T) {
	dir := ignoreProject(t)
	for _, tc := range []struct {
		name string
		o    Options
		kept string
	}{
		{"no defaults", Options{Engine: codeview.Engine(), NoDefaultIgnores: true},
			".env .env.example .env.production .hg/store .npmrc .venv/lib/site.py README.md dist/app.js keys/id_ed25519 keys/id_ed25519.pub keys/tls.key logs/run.log pkg/__pycache__/m.cpython.pyc src/.gitignore src/app.py src/go.sum target/debug/app uv.lock web/dist/app.js web/node_modules/x/index.js web/package-lock.json web/yarn.lock"},
		{"more patterns; the last match wins", Options{Engine: codeview.Engine(), IgnorePatterns: []string{"keys/", "*.md", "!go.sum", "# a comment", "/web/"}},
			".env.example src/.gitignore src/app.py src/go.sum"},
		{"anchored pattern", Options{Engine: codeview.Engine(), IgnorePatterns: []string{"/src/app.py"}},
			".env.example README.md keys/id_ed25519.pub src/.gitignore web/dist/app.js"},
	} {
		o := tc.o
		o.BaseDir, o.Files = dir, []FileItem{{Path: "."}}
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(labels(res.Items), " "); got != tc.kept {
			t.Errorf("%s: kept %s\nwant %s", tc.name, got, tc.kept)
		}
		if tc.o.NoDefaultIgnores && len(res.Ignored) != 0 {
			t.Errorf("%s: ignored %v", tc.name, res.Ignored)
		}
		for _, p := range res.Ignored {
			if p.Path == "keys" || p.Path == "README.md" {
				t.Errorf("%s: %s left out by the caller's pattern is listed as a default", tc.name, p.Path)
			}
		}
	}
	if _, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "."}}, IgnorePatterns: []string{"a/[b"}}); err == nil ||
		err.Error() != `ignore pattern "a/[b": invalid pattern "a/[b": syntax error in pattern` {
		t.Errorf("bad pattern: %v", err)
	}
}

// Named explicitly, a file or a directory the list leaves out is read:
// .env as an entry, node_modules as the directory walked or a glob's base.
func TestIgnoredNamedExplicitly(t *testing.T) {
	dir := ignoreProject(t)
	for _, tc := range []struct {
		entries []string
		kept    string
		ignored string
	}{
		{[]string{".env", "web/node_modules"}, ".env web/node_modules/x/index.js", ""},
		{[]string{"web/node_modules/**/*.js"}, "web/node_modules/x/index.js", ""},
		{[]string{"*", ".env"}, ".env.example README.md .env", ".env.production .npmrc uv.lock"},
	} {
		var files []FileItem
		for _, e := range tc.entries {
			files = append(files, FileItem{Path: e})
		}
		res, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: files})
		if err != nil {
			t.Fatal(err)
		}
		var ignored []string
		for _, p := range res.Ignored {
			ignored = append(ignored, p.Shown())
		}
		if got := strings.Join(labels(res.Items), " "); got != tc.kept || strings.Join(ignored, " ") != tc.ignored {
			t.Errorf("%v: kept %s, ignored %v", tc.entries, got, ignored)
		}
	}
}

func TestCheckIgnorePattern(t *testing.T) {
	for p, want := range map[string]string{
		"*.csv": "", "!keep.csv": "", "/build/": "", "docs/**/*.md": "", "\\#file": "",
		"": "must not be empty", "  ": "must not be empty", "[": `invalid pattern "[": syntax error in pattern`,
	} {
		got := ""
		if err := CheckIgnorePattern(p); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("%q: %q, want %q", p, got, want)
		}
	}
	for _, g := range DefaultIgnores() {
		for _, p := range g.Patterns {
			if err := CheckIgnorePattern(p); err != nil {
				t.Errorf("default %s: %v", p, err)
			}
		}
	}
}

// docs/config.md lists every default pattern.
func TestDefaultIgnoresDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "config.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range DefaultIgnores() {
		for _, p := range g.Patterns {
			if !bytes.Contains(doc, []byte("`"+p+"`")) {
				t.Errorf("docs/config.md does not list the default pattern %s (%s)", p, g.What)
			}
		}
	}
}

// A glob whose base is the output directory, or the directory itself,
// takes nothing from it.
func TestOutputDirAsBase(t *testing.T) {
	dir := tree(t, map[string]string{"a.md": "# A\n", "out/p_001.md": "## Files\n", "out/sub/p.md": "x\n"})
	out := filepath.Join(dir, "out")
	for entry, want := range map[string]string{
		"out/*.md":  "no files matched: out/*.md (globs never enter out, the output directory)",
		"out/**":    "no files matched: out/** (globs never enter out, the output directory)",
		"out/sub/*": "no files matched: out/sub/* (globs never enter out, the output directory)",
		"out":       "no files matched: out (directory walks never enter out, the output directory)",
		"out/sub":   "no files matched: out/sub (directory walks never enter out, the output directory)",
	} {
		items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: entry}}, SkipDirs: []string{out}})
		if len(items) != 1 || items[0].Error != want {
			t.Errorf("%q: %+v", entry, items)
		}
	}
}

// An output directory that holds the base directory (output_dir = ".")
// is walked: only the numbered outputs directly in it are left out.
func TestOutputDirHoldsBase(t *testing.T) {
	dir := tree(t, map[string]string{"a.md": "# A\n", "p_001.md": "## Files\n", "p_notes.md": "n\n", "sub/p_002.md": "x\n", "sub/b.md": "b\n"})
	for _, out := range []string{dir, filepath.Dir(dir)} {
		got := labels(build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "."}}, SkipDirs: []string{out}, Namespace: "p"}))
		if want := "a.md p_notes.md sub/b.md sub/p_002.md"; strings.Join(got, " ") != want && out == dir {
			t.Errorf("output dir %s: %v", out, got)
		}
		if want := "a.md p_001.md p_notes.md sub/b.md sub/p_002.md"; strings.Join(got, " ") != want && out != dir {
			t.Errorf("output dir %s: %v", out, got)
		}
	}
	items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "*_001.md"}}, SkipDirs: []string{dir}, Namespace: "p"})
	if len(items) != 1 || items[0].Error != "no files matched: *_001.md (earlier outputs are never aggregated: p_001.md)" {
		t.Errorf("only outputs: %+v", items)
	}
	// Run writes into the base directory and does not read the outputs
	// back
	for i := 0; i < 2; i++ {
		res, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "*.md"}}, OutputDir: dir, Namespace: "p"})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(labels(res.Items), " "); got != "a.md p_notes.md" {
			t.Errorf("run %d: %s", i, got)
		}
	}
}

// Options.Changed keeps the changed files of the selection; entries that
// match nothing stay as errors.
func TestChangedFilter(t *testing.T) {
	dir := ignoreProject(t)
	ch := &Changes{Root: dir, Paths: []string{"src/app.py", "uv.lock", "web/node_modules/x/index.js", "gone.py"}}
	res, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "."}, {Path: "missing/*.py"}}, Changed: ch})
	if err != nil {
		t.Fatal(err)
	}
	var ignored []string
	for _, p := range res.Ignored {
		ignored = append(ignored, p.Shown())
	}
	if got := fmt.Sprint(labels(res.Items), ignored); got != "[src/app.py missing/*.py] [uv.lock web/node_modules/]" {
		t.Errorf("changed: %s", got)
	}
	if res.Summary().Changed == nil || *res.Summary().Changed != "" || res.Summary().Files != 1 || res.Summary().Errors != 1 {
		t.Errorf("summary %+v", res.Summary())
	}
	// base_dir below the repository root
	res, err = Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: filepath.Join(dir, "src"), Files: []FileItem{{Path: "*.py"}}, Changed: ch})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(labels(res.Items)); got != "[app.py]" {
		t.Errorf("from src: %s", got)
	}
}

func TestChangedFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ctx := context.Background()
	dir := tree(t, map[string]string{"a.py": "A = 1\n", "b.py": "B = 1\n", "gone.py": "G = 1\n", "sub/c.py": "C = 1\n", ".gitignore": "*.out\n"})
	if _, err := ChangedFiles(ctx, dir, ""); err == nil || !strings.Contains(err.Error(), "is not in a git working tree") {
		t.Fatalf("outside git: %v", err)
	}
	gitIn := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitIn("init", "-q")
	gitIn("add", "a.py", "b.py", "gone.py", ".gitignore")
	// before the first commit every tracked file is new
	ch, err := ChangedFiles(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ch.Paths); got != "[.gitignore a.py b.py gone.py sub/c.py]" {
		t.Errorf("unborn: %s", got)
	}
	gitIn("commit", "-q", "-m", "one")
	gitIn("tag", "one")
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.py", "A = 2\n")
	gitIn("commit", "-q", "-am", "two")
	write("b.py", "B = 2\n")
	write("x.out", "ignored\n")
	if err := os.Remove(filepath.Join(dir, "gone.py")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ ref, want string }{
		{"", "[b.py sub/c.py]"},
		{"HEAD", "[b.py sub/c.py]"},
		{"one", "[a.py b.py sub/c.py]"},
		{"HEAD~1", "[a.py b.py sub/c.py]"},
	} {
		ch, err := ChangedFiles(ctx, filepath.Join(dir, "sub"), tc.ref)
		if err != nil {
			t.Fatalf("%q: %v", tc.ref, err)
		}
		if got := fmt.Sprint(ch.Paths); got != tc.want || ch.Ref != tc.ref {
			t.Errorf("%q: %s, want %s", tc.ref, got, tc.want)
		}
	}
	for _, ref := range []string{"nope", "-p", "--output=x"} {
		if _, err := ChangedFiles(ctx, dir, ref); err == nil {
			t.Errorf("%q: no error", ref)
		}
		if IsRevision(ctx, dir, ref) {
			t.Errorf("%q is a revision", ref)
		}
	}
	if !IsRevision(ctx, dir, "one") || !IsRevision(ctx, dir, "HEAD~1") || IsRevision(ctx, dir, "a.py") {
		t.Error("IsRevision")
	}
}

func TestSummaryWrite(t *testing.T) {
	dir := tree(t, map[string]string{
		"big.py":       strings.Repeat("def f(a):\n    return a + 1\n\n", 40),
		"mid.py":       strings.Repeat("x = 1\n", 30),
		"small.py":     "y = 2\n",
		"logo.png":     "\x00\x01png",
		"skip.py":      "s = 1\n",
		"a/b/c.txt":    "c\n",
		".env":         "T=1\n",
		"yarn.lock":    "#\n",
		"x/Cargo.lock": "#\n",
	})
	res, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "."}, {Path: "skip.py", NoAutoAggregate: true}, {Path: "nope/*.py"}},
		MaxTokens: measure.Max(85)})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := res.Summary().Write(&b); err != nil {
		t.Fatal(err)
	}
	want := `ctx: 4 files, 81 tokens (chars4)
ctx: token budget max_tokens 85: 1 degraded, 1 omitted (listed in the document)
ctx: 1 error, 1 binary file not inlined, 1 excluded by auto_aggregate = false
ctx: largest: logo.png 13, mid.py 13, a/b/c.txt 8, small.py 8
ctx: left out by the default ignores: .env, x/Cargo.lock, yarn.lock (--no-default-ignores, or
ctx:   --ignore '!PATTERN', keeps them)
`
	if b.String() != want {
		t.Errorf("summary:\n%s\nwant:\n%s", b.String(), want)
	}
	// at 60 columns every line fits, no name broken
	b.Reset()
	if err := res.Summary().WriteFitted(&b, 60); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if len(line) > 60 || !strings.HasPrefix(line, "ctx: ") {
			t.Errorf("at 60 columns: %q", line)
		}
	}
	if !strings.Contains(b.String(), "\nctx:   small.py 8\n") || strings.Contains(b.String(), "\u00a0") {
		t.Errorf("at 60 columns:\n%s", b.String())
	}
}

// The budget's line says whether the document names what it left out.
func TestSummaryBudgetLine(t *testing.T) {
	for _, tc := range []struct {
		degraded, omitted, unlisted int
		want                        string
	}{
		{2, 0, 0, "ctx: token budget max_tokens 1000: 2 degraded, 0 omitted\n"},
		{0, 3, 0, "ctx: token budget max_tokens 1000: 0 degraded, 3 omitted (listed in the document)\n"},
		{1, 1204, 1190, "ctx: token budget max_tokens 1000: 1 degraded, 1,204 omitted (14 listed in the document, the other 1,190 counted)\n"},
		{0, 7, 7, "ctx: token budget max_tokens 1000: 0 degraded, 7 omitted (counted in the document: their names did not fit)\n"},
	} {
		s := Summary{Estimator: "chars4", Budget: "max_tokens 1000", Degraded: tc.degraded, Omitted: tc.omitted, Unlisted: tc.unlisted}
		var b strings.Builder
		if err := s.WriteFitted(&b, 200); err != nil {
			t.Fatal(err)
		}
		_, got, _ := strings.Cut(b.String(), "\n")
		if got != tc.want {
			t.Errorf("%+v:\n got %q\nwant %q", tc, got, tc.want)
		}
	}
}
