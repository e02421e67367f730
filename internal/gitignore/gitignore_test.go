package gitignore

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestWildmatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, text string
		pathname      bool
		want          bool
	}{
		{"foo", "foo", true, true},
		{"foo", "bar", true, false},
		{"???", "???", true, true},
		{"??", "???", true, false},
		{"*", "foo", true, true},
		{"f*", "foo", true, true},
		{"*f", "foo", true, false},
		{"*ob*a*r*", "foobar", true, true},
		{"*ab", "aaaaaaabababab", true, true},
		{`foo\*`, "foo*", true, true},
		{`foo\*bar`, "foobar", true, false},
		{`f\\oo`, `f\oo`, true, true},
		{"*[al]?", "ball", true, true},
		{"[ten]", "ten", true, false},
		{"t[a-g]n", "ten", true, true},
		{"t[!a-g]n", "ten", true, false},
		{"t[!a-g]n", "ton", true, true},
		{"t[^a-g]n", "ton", true, true},
		{"a[]]b", "a]b", true, true},
		{"a[]-]b", "a-b", true, true},
		{"a[]-]b", "aab", true, false},
		{"a[]a-]b", "aab", true, true},
		{"[[:digit:]]x", "7x", true, true},
		{"[[:digit:]]x", "ax", true, false},
		{"[[:bogus:]]", "a", true, false},
		{"foo*bar", "foo/baz/bar", true, false},
		{"foo*bar", "foo/baz/bar", false, true},
		{"foo**bar", "foobazbar", true, true},
		{"foo/**/bar", "foo/baz/bar", true, true},
		{"foo/**/bar", "foo/b/a/z/bar", true, true},
		{"foo/**/bar", "foo/bar", true, true},
		{"foo?bar", "foo/bar", true, false},
		{"foo[/]bar", "foo/bar", true, false},
		{"**/foo", "foo", true, true},
		{"**/foo", "bar/baz/foo", true, true},
		{"*/foo", "bar/baz/foo", true, false},
		{"**/bar/*", "deep/foo/bar/baz", true, true},
		{"**/bar/*", "deep/foo/bar", true, false},
		{"*/bar/**", "foo/bar/baz/x", true, true},
		{"*/bar/**", "deep/foo/bar/baz/x", true, false},
		{"**/bar/*/*", "deep/foo/bar/baz/x", true, true},
		{"a/**", "a/b/c", true, true},
		{"a/**", "a", true, false},
		{`foo\`, "foo", true, false},
		{"[", "[", true, false},
	} {
		if got := wildmatch(tc.pattern, tc.text, tc.pathname); got != tc.want {
			t.Errorf("wildmatch(%q, %q, pathname %v) = %v, want %v", tc.pattern, tc.text, tc.pathname, got, tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	for line, want := range map[string]string{
		"":             "",
		"# comment":    "",
		"   ":          "",
		"a.log":        "a.log",
		"a.log   ":     "a.log",
		`a\ `:          `a\ `,
		`a\  `:         `a\ `,
		"dir/\r":       "dir/",
		`\#hash`:       `\#hash`,
		"!keep.log":    "!keep.log",
		"/anchored/":   "/anchored/",
		"docs/**/*.md": "docs/**/*.md",
	} {
		p, ok := Parse(line, "")
		got := ""
		if ok {
			got = p.Text
		}
		if got != want {
			t.Errorf("Parse(%q) = %q, want %q", line, got, want)
		}
	}
	p, _ := Parse("/versions", "")
	p.Source, p.Line = ".gitignore", 3
	if p.String() != ".gitignore:3 /versions" {
		t.Errorf("String() = %q", p.String())
	}
}

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		pattern, base, rel string
		isDir, want        bool
	}{
		{"*.log", "", "a/b/c.log", false, true},
		{"*.log", "", "a.log", true, true},
		{"build/", "", "build", false, false},
		{"build/", "", "x/build", true, true},
		{"/build/", "", "x/build", true, false},
		{"/build/", "", "build", true, true},
		{"build", "", "build/a.o", false, false}, // the path itself only
		{"doc/*.txt", "", "doc/a.txt", false, true},
		{"doc/*.txt", "", "doc/x/a.txt", false, false},
		{"doc/*.txt", "", "x/doc/a.txt", false, false},
		{"/local.txt", "sub", "sub/local.txt", false, true},
		{"/local.txt", "sub", "local.txt", false, false},
		{"*.md", "sub", "sub/x/a.md", false, true},
		{"foo*bar", "", "foo/x/bar", false, false},
	} {
		p, _ := Parse(tc.pattern, tc.base)
		if got := p.Matches(tc.rel, tc.isDir); got != tc.want {
			t.Errorf("%q in %q: Matches(%q, dir %v) = %v, want %v", tc.pattern, tc.base, tc.rel, tc.isDir, got, tc.want)
		}
	}
}

// tricky is a working tree that exercises git's rules: negation, a file
// that cannot be re-included below an excluded directory, anchoring in
// nested files, "**", classes, escapes, trailing spaces, directory-only
// patterns, and .git/info/exclude below .gitignore.
var tricky = map[string]string{
	".gitignore": strings.Join([]string{
		"# comment",
		"*.log",
		"!keep.log",
		"/build/",
		"docs/**/*.tmp",
		"**/cache/",
		"a/**/b",
		"foo*bar",
		`\#hash`,
		`trailing\ `,
		"spaces   ",
		"[abc].txt",
		"[!x]y.md",
		"*.[oa]",
		"/anchored.txt",
		"dir/",
		"!dir/keep.txt",
		"nested/deep/",
		"x/**",
		"!x/y/keep",
		"**/z",
		"lib/*",
		"!lib/keep/",
		"",
	}, "\n"),
	".git/info/exclude": "secret.txt\n!sub/README.md\n",
	"sub/.gitignore":    "*.md\n!README.md\n/local.txt\ndeeper/\n!*.log\n",
	"sub/x/.gitignore":  "!notes.md\n",
	"a.log":             "", "keep.log": "", "sub/keep.log": "", "sub/other.log": "",
	"build/out.o": "", "src/build/kept.c": "", "src/build.o": "",
	"docs/a.tmp": "", "docs/x/y/b.tmp": "", "docs/c.md": "",
	"cache/x": "", "src/cache/y": "", "other/cache": "",
	"a/b": "", "a/x/y/b": "", "a/b2": "",
	"foobar": "", "foo-bar": "", "foo/bar": "", "foo/x/bar": "",
	"#hash": "", "hash": "",
	"trailing ": "", "trailing": "",
	"spaces": "", "spaces   ": "",
	"a.txt": "", "d.txt": "", "ay.md": "", "xy.md": "",
	"m.o": "", "m.a": "", "m.c": "",
	"anchored.txt": "", "sub/anchored.txt": "",
	"dir/keep.txt": "", "dir/sub/file": "", "src/dir/f": "",
	"nested/deep/f": "", "nested/f": "",
	"x/y/keep": "", "x/f": "",
	"z": "", "q/z": "", "q/z2": "",
	"lib/a.c": "", "lib/keep/b.c": "",
	"secret.txt": "", "sub/secret.txt": "",
	"sub/a.md": "", "sub/README.md": "", "sub/local.txt": "", "sub/y/local.txt": "",
	"sub/deeper/f": "", "sub/x/notes.md": "", "sub/x/other.md": "",
	"ok.go": "",
}

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// ignoredByUs lists the files of dir that g ignores, slash paths.
func ignoredByUs(t *testing.T, dir string, g *GitIgnore) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if g.Ignored(p, false) {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// The matcher ignores exactly the files that git ignores, on the tricky
// tree: compared with `git ls-files --others --ignored --exclude-standard`
// when git is installed.
func TestSameAsGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := writeTree(t, tricky)
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	run := func(args ...string) []byte {
		cmd := exec.Command(gitBin, args...)
		cmd.Dir, cmd.Env = dir, env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, stderr.String())
		}
		return out
	}
	// git init keeps the .git/info/exclude of the tree
	exclude := tricky[".git/info/exclude"]
	run("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), []byte(exclude), 0o644); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range strings.Split(string(run("ls-files", "-z", "--others", "--ignored", "--exclude-standard")), "\x00") {
		if f != "" {
			want = append(want, f)
		}
	}
	sort.Strings(want)
	got := ignoredByUs(t, dir, New(dir))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ignored files differ from git's\n--- ours ---\n%s\n--- git ---\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The same rules, pinned without git: what the tree above leaves out.
func TestTrickyTree(t *testing.T) {
	dir := writeTree(t, tricky)
	got := ignoredByUs(t, dir, New(dir))
	want := []string{
		"#hash", "a.log", "a.txt", "a/b", "a/x/y/b", "anchored.txt", "ay.md", "build/out.o", "cache/x",
		"dir/keep.txt", "dir/sub/file", "docs/a.tmp", "docs/x/y/b.tmp", "foo-bar", "foobar", "lib/a.c",
		"m.a", "m.o", "nested/deep/f", "q/z", "secret.txt", "spaces", "src/build.o", "src/cache/y", "src/dir/f",
		"sub/a.md", "sub/deeper/f", "sub/local.txt", "sub/secret.txt", "sub/x/other.md", "trailing ",
		"x/f", "x/y/keep", "z",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ignored:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Why names the file, line and pattern; WhyBelow does not look at a
// directory named for the walk, and still applies the rules below it.
func TestWhyBelow(t *testing.T) {
	dir := writeTree(t, map[string]string{
		".gitignore":              "# pyenv\n\n/versions\n*.pyc\n",
		"versions/3.12/lib/os.py": "", "versions/3.12/lib/os.pyc": "",
	})
	g := New(dir)
	py := filepath.Join(dir, "versions", "3.12", "lib", "os.py")
	if p := g.Why(py, false); p == nil || p.String() != ".gitignore:3 /versions" {
		t.Errorf("Why = %v", p)
	}
	for _, top := range []string{filepath.Join(dir, "versions"), filepath.Join(dir, "versions", "3.12")} {
		if p := g.WhyBelow(top, py, false); p != nil {
			t.Errorf("below %s: %v", top, p)
		}
		if p := g.WhyBelow(top, py+"c", false); p == nil || p.String() != ".gitignore:4 *.pyc" {
			t.Errorf("below %s, the .pyc: %v", top, p)
		}
	}
	if p := g.WhyBelow(dir, py, false); p == nil {
		t.Error("below the root: not ignored")
	}
}

func TestUnreadableIgnoreFile(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.txt": ""})
	if err := os.Mkdir(filepath.Join(dir, ".gitignore"), 0o755); err != nil {
		t.Fatal(err)
	}
	g := New(dir)
	g.Ignored(filepath.Join(dir, "a.txt"), false)
	if g.Err() == nil || !strings.HasPrefix(g.Err().Error(), ".gitignore: ") {
		t.Errorf("Err() = %v", g.Err())
	}
}
