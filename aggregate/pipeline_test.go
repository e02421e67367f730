package aggregate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/aggregate/slice"
	"github.com/ctxaudit/ctx/internal/testfs"
)

// tree writes files (slash paths → content) below a new temporary directory.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	return testfs.Tree(t, files)
}

func labels(items []Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Path)
	}
	return out
}

func build(t *testing.T, o Options) []Item {
	t.Helper()
	items, err := BuildItems(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func TestGitignore(t *testing.T) {
	dir := tree(t, map[string]string{
		".git/info/exclude":  "secret.txt\n",
		".git/config":        "[core]\n",
		".gitignore":         "# comment\n*.log\nbuild/\n!keep.log\n",
		"a.txt":              "a",
		"debug.log":          "x",
		"keep.log":           "kept by a negation",
		"secret.txt":         "excluded by info/exclude",
		"build/out.txt":      "ignored dir",
		"sub/.gitignore":     "local.txt\n/rooted.txt\n",
		"sub/local.txt":      "ignored by the nested file",
		"sub/rooted.txt":     "ignored, rooted at sub",
		"sub/b.txt":          "b",
		"sub/deep/local.txt": "ignored: nested patterns apply below",
		"sub/deep/c.txt":     "c",
		"other/local.txt":    "not ignored: the nested file does not apply here",
		"other/rooted.txt":   "not ignored",
	})
	want := []string{".gitignore", "a.txt", "keep.log", "other/local.txt", "other/rooted.txt", "sub/.gitignore", "sub/b.txt", "sub/deep/c.txt"}
	for _, entry := range []string{"**", "."} {
		// without the default list, which leaves out *.log
		got := labels(build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: entry}}, NoDefaultIgnores: true}))
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%q: got %v, want %v", entry, got, want)
		}
	}
	// a base directory below the repository root still uses the root's rules
	got := labels(build(t, Options{Engine: codeview.Engine(), BaseDir: filepath.Join(dir, "sub"), Files: []FileItem{{Path: "**/*.txt"}}}))
	if strings.Join(got, " ") != "b.txt deep/c.txt" {
		t.Errorf("from sub: got %v", got)
	}
	// naming an ignored file explicitly includes it
	items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "debug.log"}}})
	if items[0].Status != StatusOK {
		t.Errorf("explicit ignored file: %+v", items[0])
	}
}

// A directory git ignores, named explicitly or as a glob's base, is read
// (git's rules still apply below it); an entry whose every match git
// leaves out says so, naming the pattern; NoGitIgnore reads everything.
func TestGitignoredNamedExplicitly(t *testing.T) {
	dir := tree(t, map[string]string{
		".git/config":                   "[core]\n",
		".gitignore":                    "# pyenv\n/versions\n*.pyc\n*.log\ngen.js\n",
		"gen.js":                        "x",
		"node_modules/x.js":             "x",
		"doc.md":                        "x",
		"versions/3.12/lib/os.py":       "import sys\n",
		"versions/3.12/lib/os.pyc":      "x",
		"versions/3.12/lib/sub/glob.py": "G = 1\n",
		"versions/3.12/lib/.gitignore":  "sub/\n",
		"app.py":                        "A = 1\n",
		"logs/a.log":                    "x",
	})
	for _, tc := range []struct {
		entry, want string
	}{
		{"versions/3.12/lib", "versions/3.12/lib/.gitignore versions/3.12/lib/os.py"},
		{"versions", "versions/3.12/lib/.gitignore versions/3.12/lib/os.py"},
		{"versions/**/*.py", "versions/3.12/lib/os.py"},
		{"versions/3.12/lib/sub", "versions/3.12/lib/sub/glob.py"},
		{".", ".gitignore app.py doc.md"},
	} {
		got := labels(build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: tc.entry}}}))
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%q: got %v, want %s", tc.entry, got, tc.want)
		}
	}
	// what left an entry's matches out, in the walk's order (git's rules
	// before the lists at each level)
	for entry, want := range map[string]string{
		"**/*.pyc": "no files matched: **/*.pyc (git ignores what it matched: .gitignore:2 /versions; --no-gitignore reads it)",
		"logs":     "no files matched: logs (git ignores what it matched: .gitignore:4 *.log; --no-gitignore reads it)",
		"**/*.log": "no files matched: **/*.log (git ignores what it matched: .gitignore:4 *.log; --no-gitignore reads it)",
		"**/*.js":  "no files matched: **/*.js (the default ignores and git left out what it matched: .gitignore:5 gen.js)",
		"*.md":     "no files matched: *.md (the ignore patterns left out what it matched: *.md)",
		"**/*.rs":  "no files matched: **/*.rs",
	} {
		items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: entry}}, IgnorePatterns: []string{"*.md"}})
		if len(items) != 1 || items[0].Error != want {
			t.Errorf("%q: %+v", entry, items)
		}
	}
	items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "**/*.pyc"}}, NoDefaultIgnores: true, IgnorePatterns: []string{"x"}})
	if len(items) != 1 || !strings.HasPrefix(items[0].Error, "no files matched: **/*.pyc (git ignores") {
		t.Errorf("without defaults: %+v", items)
	}
	got := labels(build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "."}}, NoGitIgnore: true, NoDefaultIgnores: true}))
	if want := ".gitignore app.py doc.md gen.js logs/a.log node_modules/x.js versions/3.12/lib/.gitignore versions/3.12/lib/os.py versions/3.12/lib/os.pyc versions/3.12/lib/sub/glob.py"; strings.Join(got, " ") != want {
		t.Errorf("NoGitIgnore: %v", got)
	}
}

func TestResolveEntries(t *testing.T) {
	dir := tree(t, map[string]string{
		"a/x.py":              "x = 1\n",
		"a/y.py":              "y = 2\n",
		"a/b/z.py":            "z = 3\n",
		"a/history.toml":      "h",
		"a/B_HISTORY.toml":    "h",
		"a/notes_history.txt": "kept: not .toml",
		"data.py":             "d = 0\n",
	})
	items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{
		{Path: "a/*.py"},
		{Path: "a/**/*.py"}, // overlaps: z.py is new, x and y once
		{Path: "a/y.py", ViewMode: ViewNone},
		{Path: "a/*.rs"},
		{Path: "a/**"},
		{Path: "a/history.toml"},
	}})
	var got []string
	for _, it := range items {
		got = append(got, fmt.Sprintf("%s:%s:%s", it.Path, it.Status, it.ViewMode))
	}
	want := []string{
		"a/x.py:ok:full", "a/y.py:ok:none", "a/b/z.py:ok:full",
		"a/*.rs:error:full", "a/notes_history.txt:ok:full", "a/history.toml:error:full",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
	if items[3].Error != "no files matched: a/*.rs" || !strings.Contains(items[3].Content, "ERROR: no files matched: a/*.rs") || !items[3].MTime.IsZero() {
		t.Errorf("a glob that matches nothing: %+v", items[3])
	}
}

// A path that does not exist (not a glob) is an error of the run, never an
// "ERROR:" block in place of the file: it names the path as written, where
// it was written, and the others; a preset's (Optional) is left out.
func TestMissingPath(t *testing.T) {
	dir := tree(t, map[string]string{"a.py": "A = 1\n", "[id]/page.tsx": "x\n"})
	for _, tc := range []struct {
		files []FileItem
		want  string // "" : no error
	}{
		{[]FileItem{{Path: "a.py"}, {Path: "missing.py"}}, "missing.py: no such file"},
		{[]FileItem{{Path: "./src/../missing.py"}}, "./src/../missing.py: no such file"},
		{[]FileItem{{Path: "gone.py", At: "ctx.toml:4: files.paths[1]"}, {Path: "b.py"}, {Path: "c\n.py"}},
			"ctx.toml:4: files.paths[1]: gone.py: no such file (nor b.py, c\\n.py)"},
		// a glob, or a path with glob characters that exists, is not a path that is missing
		{[]FileItem{{Path: "*.rs"}, {Path: "[id]/page.tsx"}}, ""},
		{[]FileItem{{Path: "a.py"}, {Path: "missing.py", Optional: true}}, ""},
	} {
		for _, run := range []func(Options) error{
			func(o Options) error { _, err := Run(context.Background(), o); return err },
			func(o Options) error { _, err := Stream(context.Background(), o, io.Discard); return err },
			func(o Options) error { _, _, err := MeasureFiles(context.Background(), o); return err },
		} {
			out := filepath.Join(dir, "out")
			err := run(Options{Engine: codeview.Engine(), BaseDir: dir, Files: tc.files, OutputDir: out})
			var me *MissingError
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%v: %v", tc.files, err)
			case tc.want != "" && (!errors.As(err, &me) || err.Error() != tc.want):
				t.Errorf("%v: %v, want %q", tc.files, err, tc.want)
			case tc.want != "":
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("%v: the failed run made %s", tc.files, out)
				}
			}
			os.RemoveAll(out)
		}
	}
	// a link to nothing is there: reading it is a file error, as ever
	if err := os.Symlink("nowhere.py", filepath.Join(dir, "link.py")); err != nil {
		t.Fatal(err)
	}
	if items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "link.py"}}}); len(items) != 1 || items[0].Error != "file not found: link.py" {
		t.Errorf("a dangling link: %+v", items)
	}
	// a preset's missing file (Optional, as presets.Preset.Apply sets it) is not an item
	items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "a.py", Optional: true}, {Path: "missing.py", Optional: true}}})
	if got := labels(items); fmt.Sprint(got) != "[a.py]" {
		t.Errorf("preset: %v", got)
	}
}

func TestBinaryAndLimits(t *testing.T) {
	dir := tree(t, map[string]string{
		"nul.dat":  "abc\x00def",
		"bad.txt":  "caf\xe9",
		"ok.txt":   "fine\n",
		"big.txt":  strings.Repeat("x", 200),
		"fence.md": "a ``` b ````` c\n",
	})
	items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, MaxFileBytes: 100, Files: []FileItem{{Path: "*"}}})
	byPath := map[string]Item{}
	for _, it := range items {
		byPath[it.Path] = it
	}
	for _, p := range []string{"nul.dat", "bad.txt"} {
		it := byPath[p]
		if it.Status != StatusBinary || !strings.HasPrefix(it.Content, "(binary file not inlined") || it.Source.Bytes == 0 || it.Source.Hash == "" {
			t.Errorf("%s: %+v", p, it)
		}
	}
	if it := byPath["big.txt"]; it.Status != StatusError || !strings.Contains(it.Error, "file too large") {
		t.Errorf("big.txt: %+v", it)
	}
	// the block's fence is longer than any backtick run; the content is the file
	if it := byPath["fence.md"]; it.Content != "a ``` b ````` c\n" || !strings.HasSuffix(it.Block(), "\n\n``````md\na ``` b ````` c\n``````") {
		t.Errorf("fence.md content %q, block %q", it.Content, it.Block())
	}
}

func TestFocusNeverBySubstring(t *testing.T) {
	for _, tc := range []struct {
		label string
		focus []string
		want  bool
	}{
		{"src/a.py", []string{"a.py"}, true},
		{"data.py", []string{"a.py"}, false},
		{"src/data.py", []string{"a.py"}, false},
		{"src/a.py", []string{"src/a.py"}, true},
		{"src/a.py", []string{"./src/a.py"}, true},
		{"lib/src/a.py", []string{"src/a.py"}, false},
		{"src/a.py", []string{"src"}, false},
		{"src/a.py", []string{"a"}, false},
	} {
		if got := IsFocus(tc.label, tc.focus); got != tc.want {
			t.Errorf("IsFocus(%q, %q) = %v", tc.label, tc.focus, got)
		}
	}
	dir := tree(t, map[string]string{"a.py": "a = 1\n", "data.py": "d = 1\n"})
	items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "*.py"}}, Focus: []string{"a.py"}})
	if !items[0].Focus || items[0].ViewMode != ViewFull || items[1].Focus || items[1].RequestedViewMode != ViewSkeleton {
		t.Errorf("tier 3 items: %+v / %+v", items[0], items[1])
	}
}

// Focus is matched against the entry, the path, the name and the absolute
// path, as the original matches it (without its substring match), and the
// focus entries that match nothing are reported.
func TestFocusMatches(t *testing.T) {
	for _, tc := range []struct {
		focus, label, entry, abs string
		want                     bool
	}{
		{"src/*.py", "src/a.py", "src/*.py", "/p/src/a.py", true},   // the entry
		{"./src/*.py", "src/b.py", "src/*.py", "/p/src/b.py", true}, // the entry, cleaned
		{"src/*.py", "src/a.py", "src/**", "/p/src/a.py", false},    // not a glob of its own
		{"/p/src/a.py", "src/a.py", "src/**", "/p/src/a.py", true},  // the absolute path
		{"/q/src/a.py", "src/a.py", "src/**", "/p/src/a.py", false}, // another one
		{"a.py", "lib/a.py", "lib", "/p/lib/a.py", true},            // the name
		{"a.py", "lib/data.py", "lib", "/p/lib/data.py", false},     // never a substring
		{"lib", "lib/a.py", "lib", "/p/lib/a.py", true},             // the entry: a directory
		{"lib/a.py", "x/lib/a.py", "x/**", "/p/x/lib/a.py", false},  // a path is the whole label
		{"src/a.py", "src/a.py", "", "", true},                      // the path alone
	} {
		if got := FocusMatches(tc.focus, tc.label, tc.entry, tc.abs); got != tc.want {
			t.Errorf("FocusMatches(%q, %q, %q, %q) = %v", tc.focus, tc.label, tc.entry, tc.abs, got)
		}
	}
	dir := tree(t, map[string]string{"src/a.py": "a = 1\n", "src/b.py": "b = 1\n", "c.c": "int c;\n", "d.md": "# D\n"})
	res, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Strategy: StrategyTier3,
		Files: []FileItem{{Path: "src/*.py"}, {Path: "c.c"}, {Path: "d.md"}},
		Focus: []string{"src/*.py", "nothing.py", "a", filepath.Join(dir, "d.md")}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range res.Items {
		got = append(got, fmt.Sprintf("%s %s %v %s", it.Path, it.ViewMode, it.Focus, it.Header))
	}
	want := []string{"src/a.py full true ### `src/a.py`", "src/b.py full true ### `src/b.py`",
		"c.c outline false ### `c.c` (AST Outline)", "d.md full true ### `d.md`"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("items:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if strings.Join(res.UnmatchedFocus, ",") != "nothing.py,a" {
		t.Errorf("unmatched focus %q", res.UnmatchedFocus)
	}
	if !strings.HasPrefix(res.Markdown, "## Files (Tier 3 - Focused)") {
		t.Errorf("section: %q", res.Markdown)
	}
}

func TestAutoAggregateAndForceFull(t *testing.T) {
	dir := tree(t, map[string]string{"a.txt": "A\n", "b.txt": "B\n"})
	res, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Strategy: StrategySummarize, Files: []FileItem{
		{Path: "a.txt", NoAutoAggregate: true},
		{Path: "b.txt", ViewMode: ViewNone, ForceFull: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 2 || res.Items[0].AutoAggregate || res.Items[0].Emitted.Bytes != 0 || res.Items[0].Source.Bytes != 2 {
		t.Errorf("auto_aggregate=false item: %+v", res.Items[0])
	}
	want := "## Files (Summary)\n\n### `b.txt`\n\n```txt\nB\n```"
	if res.Markdown != want {
		t.Errorf("markdown = %q, want %q", res.Markdown, want)
	}
}

// auto_aggregate = false skips the view dispatch, as the original does: a
// view that would fail, or an orphaned slice, is never computed.
func TestAutoAggregateSkipsView(t *testing.T) {
	dir := tree(t, map[string]string{"fail.py": "FAIL\n", "m.py": "def f(): pass\n", "s.py": "x = 1\n", "bin.dat": "\x00\x01"})
	stale := slice.Slice{StartLine: 1, EndLine: 1, ContentHash: strings.Repeat("0", 64), Fingerprint: "aaaaaa"}
	res, err := Run(context.Background(), Options{BaseDir: dir, Engine: fakeEngine{}, Files: []FileItem{
		{Path: "fail.py", ViewMode: ViewSkeleton, NoAutoAggregate: true},
		{Path: "m.py", ViewMode: ViewMasked, NoAutoAggregate: true}, // no mask: would fail
		{Path: "s.py", ViewMode: ViewCustom, CustomSlices: []slice.Slice{stale}, NoAutoAggregate: true},
		{Path: "bin.dat", NoAutoAggregate: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Items {
		if it.Error != "" || it.Content != "" || it.Slices != nil || it.Fallback != "" || it.Emitted.Bytes != 0 || it.Source.Hash == "" {
			t.Errorf("%s: a view was computed: %+v", it.Path, it)
		}
		if it.RowStatus() != StatusExcluded {
			t.Errorf("%s: row status %s", it.Path, it.RowStatus())
		}
	}
	if res.Items[1].ViewMode != ViewMasked || res.Items[3].Status != StatusBinary || res.Markdown != "" {
		t.Errorf("items %+v; markdown %q", res.Items, res.Markdown)
	}
}

// fakeEngine supports .py; its views echo their input or fail on demand.
type fakeEngine struct{ TextEngine }

func (fakeEngine) Detect(p string) (string, bool) {
	if strings.HasSuffix(p, ".py") {
		return "python", true
	}
	return "", false
}
func (fakeEngine) Symbols(context.Context, string, []byte) ([]Symbol, error) {
	return []Symbol{{Name: "f", Path: "f", Kind: "Func", StartLine: 1, EndLine: 1}}, nil
}
func (fakeEngine) Skeleton(_ context.Context, _ string, src []byte) (string, error) {
	switch {
	case bytes.Contains(src, []byte("PANIC")):
		panic("boom")
	case bytes.Contains(src, []byte("FAIL")):
		return "", errors.New("parse failed")
	case bytes.Contains(src, []byte("UNSUPPORTED")):
		return "", fmt.Errorf("dialect: %w", ErrUnsupported)
	}
	return "skeleton of " + string(src), nil
}
func (fakeEngine) Mask(_ context.Context, _ string, _ []byte, mask map[string]MaskMode) (string, error) {
	var parts []string
	for _, k := range sortedKeys(mask) {
		parts = append(parts, k+"="+string(mask[k]))
	}
	return strings.Join(parts, ","), nil
}

func TestViewFailures(t *testing.T) {
	dir := tree(t, map[string]string{
		"ok.py": "def f(): pass\n", "fail.py": "FAIL\n", "panic.py": "PANIC\n", "dialect.py": "UNSUPPORTED\n",
		"doc.md": "# T\n", "m.py": "def f(): pass\n",
	})
	items := build(t, Options{BaseDir: dir, Engine: fakeEngine{}, Files: []FileItem{
		{Path: "ok.py", ViewMode: ViewSkeleton},
		{Path: "fail.py", ViewMode: ViewSkeleton},
		{Path: "panic.py", ViewMode: ViewSkeleton},
		{Path: "dialect.py", ViewMode: ViewSkeleton},
		{Path: "doc.md", ViewMode: ViewOutline},
		{Path: "m.py", ViewMode: ViewMasked, ASTMask: map[string]MaskMode{"g": "hide"}, ASTSignatures: true},
		{Path: "m.py", ViewMode: ViewMasked}, // same file: kept once
	}})
	if len(items) != 6 {
		t.Fatalf("got %d items", len(items))
	}
	check := func(i int, status Status, mode ViewMode, content, fallback string) {
		t.Helper()
		it := items[i]
		if it.Status != status || it.ViewMode != mode || !strings.Contains(it.Content, content) || !strings.Contains(it.Fallback, fallback) {
			t.Errorf("%s: status %s view %s fallback %q content %q", it.Path, it.Status, it.ViewMode, it.Fallback, it.Content)
		}
	}
	check(0, StatusOK, ViewSkeleton, "skeleton of def f", "")
	check(1, StatusError, ViewSkeleton, "ERROR in skeleton view mode for fail.py:\nparse failed", "")
	check(2, StatusError, ViewSkeleton, "ERROR in skeleton view mode for panic.py:\npanic: boom", "")
	check(3, StatusOK, ViewSummary, "**PY**", "skeleton view not supported for python")
	check(4, StatusOK, ViewSummary, "**MD**", "outline view not supported for md files")
	check(5, StatusOK, ViewMasked, "f=sig,g=hide", "")
	// a view that fell back says so in its header
	for i, want := range map[int]string{3: "### `dialect.py` (Summary; skeleton not supported)", 4: "### `doc.md` (Summary; outline not supported)", 0: "### `ok.py`"} {
		if items[i].Header != want {
			t.Errorf("header %q, want %q", items[i].Header, want)
		}
	}
	// the failing view's text is the original's: a newline, then the detail
	if b := items[1].Block(); !strings.Contains(b, "```text\nERROR in skeleton view mode for fail.py:\nparse failed\n```") {
		t.Errorf("error block %q", b)
	}
}

func TestNumberingConcurrent(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ns_007.md"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "other_050.md"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "ns_x.md"), nil, 0o644)
	const n = 40
	var wg sync.WaitGroup
	paths := make([]string, n)
	errs := make([]error, n)
	payload := func(i int) []byte { return bytes.Repeat([]byte(fmt.Sprintf("run %02d\n", i)), 20000) }
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			paths[i], errs[i] = WriteNumbered(context.Background(), dir, "ns", payload(i))
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if seen[paths[i]] {
			t.Fatalf("two runs wrote %s", paths[i])
		}
		seen[paths[i]] = true
		got, err := os.ReadFile(paths[i])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, payload(i)) {
			t.Fatalf("%s holds %d bytes, not run %d's whole output", paths[i], len(got), i)
		}
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if len(names) != n+3 || names[0] != "ns_007.md" || names[1] != "ns_008.md" || names[n] != fmt.Sprintf("ns_%03d.md", 7+n) {
		t.Errorf("directory: %v", names)
	}
	if next, _ := NextIncrement(dir, "ns"); next != 8+n {
		t.Errorf("NextIncrement = %d", next)
	}
	if _, err := WriteNumbered(context.Background(), dir, "../x", nil); err == nil {
		t.Error("a namespace with a slash was accepted")
	}
}

func TestRunWritesAndCancels(t *testing.T) {
	dir := tree(t, map[string]string{"a.txt": "A\n"})
	out := filepath.Join(dir, "out")
	res, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "a.txt"}}, OutputDir: out, Namespace: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if res.OutputPath != filepath.Join(out, "p_001.md") {
		t.Errorf("output path %s", res.OutputPath)
	}
	if b, _ := os.ReadFile(res.OutputPath); string(b) != res.Markdown+"\n" {
		t.Errorf("file holds %q", b)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "*"}}, OutputDir: out, Namespace: "p"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "p_002.md")); err == nil {
		t.Error("a cancelled run wrote its output")
	}
}

func TestMeasureFiles(t *testing.T) {
	dir := tree(t, map[string]string{"a.py": "def f():\n    pass\n", "d/b.txt": "one\ntwo\nthree\n", "d/c.bin": "\x00\x01"})
	files, _, err := MeasureFiles(context.Background(), Options{BaseDir: dir, Engine: fakeEngine{}, Files: []FileItem{{Path: "**"}, {Path: "*.rs"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%+v", files)
	want := "[{Path:a.py Lines:2 Symbols:1 Bytes:18 Tokens:5 Binary:false Error:} {Path:d/b.txt Lines:3 Symbols:0 Bytes:14 Tokens:4 Binary:false Error:} " +
		"{Path:d/c.bin Lines:0 Symbols:0 Bytes:2 Tokens:0 Binary:true Error:} {Path:*.rs Lines:0 Symbols:0 Bytes:0 Tokens:0 Binary:false Error:no files matched: *.rs}]"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	groups := GroupFilesByDir([]Item{{Path: "z/a"}, {Path: "b"}, {Path: "z/c"}})
	if len(groups) != 2 || groups[0].Dir != "." || len(groups[1].Items) != 2 {
		t.Errorf("groups: %+v", groups)
	}
}

// Earlier outputs never feed back into a run: globs and walks skip the
// output directory (a file in it named explicitly is still read).
func TestOutputDirNotAggregated(t *testing.T) {
	dir := tree(t, map[string]string{"a.md": "# A\n", ".ctx/out/p_001.md": "## Files\n", ".ctx/notes.md": "kept\n"})
	out := filepath.Join(dir, ".ctx", "out")
	for _, o := range []Options{
		{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "**/*.md"}, {Path: "."}}, OutputDir: out, Namespace: "p"},
		{BaseDir: dir, Files: []FileItem{{Path: "**/*.md"}, {Path: "."}}, SkipDirs: []string{out}}, // --stdout: no output written
	} {
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(labels(res.Items), " "); got != ".ctx/notes.md a.md" {
			t.Errorf("OutputDir %q: items %s", o.OutputDir, got)
		}
	}
	items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: ".ctx/out/p_001.md"}}, SkipDirs: []string{out}})
	if len(items) != 1 || items[0].Status != StatusOK {
		t.Errorf("explicit file in the output directory: %+v", items)
	}
}

// A path that exists is a path even when its name has glob characters
// (Next.js routes such as app/[id]/page.tsx); otherwise it is a glob.
func TestLiteralPathWithGlobCharacters(t *testing.T) {
	dir := tree(t, map[string]string{"app/[id]/page.tsx": "export default 1\n", "b{1}.txt": "b\n", "a1.txt": "a\n"})
	items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "app/[id]/page.tsx"}, {Path: "b{1}.txt"}, {Path: "app/[id]"}, {Path: "a[0-9].txt"}}})
	var got []string
	for _, it := range items {
		got = append(got, it.Path+":"+string(it.Status))
	}
	if want := "app/[id]/page.tsx:ok b{1}.txt:ok a1.txt:ok"; strings.Join(got, " ") != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

// A file reached through a symbolic link and through its own name is
// included once, where it first appears.
func TestSymlinkedFileOnce(t *testing.T) {
	dir := tree(t, map[string]string{"real.py": "x = 1\n", "other.py": "y = 2\n"})
	if err := os.Symlink("real.py", filepath.Join(dir, "link.py")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	items := build(t, Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "*.py"}, {Path: "real.py", ViewMode: ViewNone}}})
	var got []string
	for _, it := range items {
		got = append(got, it.Path+":"+string(it.ViewMode))
	}
	if want := "link.py:none other.py:full"; strings.Join(got, " ") != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

// A label with a backtick keeps its heading a single code span.
func TestHeaderLabelWithBacktick(t *testing.T) {
	dir := tree(t, map[string]string{"a`b.py": "x = 1\n", "plain.py": "y = 2\n", "s``.png": "img"})
	res, err := Run(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "*.py"}}, Screenshots: []string{"*.png"}})
	if err != nil {
		t.Fatal(err)
	}
	if h := res.Items[0].Header; h != "### ``a`b.py``" {
		t.Errorf("header %q", h)
	}
	if h := res.Items[1].Header; h != "### `plain.py`" {
		t.Errorf("header %q", h)
	}
	if b := res.Screenshots[0].Block(); !strings.HasPrefix(b, "### ```s``.png```\n\n") {
		t.Errorf("screenshot block %q", b)
	}
	if h := degradedHeader("a`b.py", ViewSkeleton); h != "### ``a`b.py`` (Skeleton; token budget)" {
		t.Errorf("degraded header %q", h)
	}
}

// The [history] history file and its attachments directory are never
// aggregated: globs and walks leave them out (a link to the history file
// too), and naming the history file is an error item that says why.
func TestHistoryFileNeverAggregated(t *testing.T) {
	dir := tree(t, map[string]string{
		"h.json":        `["User: hi"]`,
		"chat/files/a1": "attachment",
		"chat/notes.md": "# notes\n",
		"app.py":        "A = 1\n",
		"other.json":    "{}",
		"only/h2.json":  "[]",
		"sub/keep.json": "{}",
	})
	if err := os.Symlink(filepath.Join(dir, "h.json"), filepath.Join(dir, "sub", "link.json")); err != nil {
		t.Skip(err)
	}
	o := Options{Engine: codeview.Engine(), BaseDir: dir, HistoryFile: filepath.Join(dir, "h.json"), AttachmentsDir: filepath.Join(dir, "chat", "files")}
	o.Files = []FileItem{{Path: "."}}
	if got := strings.Join(labels(build(t, o)), " "); got != "app.py chat/notes.md only/h2.json other.json sub/keep.json" {
		t.Errorf("walk: %s", got)
	}
	o.Files = []FileItem{{Path: "**/*.json"}, {Path: "h.json"}, {Path: "chat/files"}}
	items := build(t, o)
	var got []string
	for _, it := range items {
		got = append(got, it.Path+": "+it.Error)
	}
	want := []string{
		"only/h2.json: ", "other.json: ", "sub/keep.json: ",
		"h.json: history files are never aggregated: h.json is the history file of [history], sent as the Discussion History",
		"chat/files: no files matched: chat/files (directory walks never enter chat/files, the attachments directory of [history])",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	o.HistoryFile = filepath.Join(dir, "only", "h2.json")
	o.Files = []FileItem{{Path: "only/*.json"}}
	if items := build(t, o); len(items) != 1 || items[0].Error != "no files matched: only/*.json (the history file of [history] is never aggregated)" {
		t.Errorf("only the history: %+v", items)
	}
}
