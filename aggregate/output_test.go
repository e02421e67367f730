package aggregate

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/measure"
)

// names lists dir, sorted; "name/" for a directory, "name@" for a link.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		switch {
		case e.Type()&os.ModeSymlink != 0:
			n += "@"
		case e.IsDir():
			n += "/"
		}
		out = append(out, n)
	}
	return out
}

// The output directory ignores itself when ctx made it: a .gitignore of
// "*" when the run creates it, or when it holds nothing but numbered
// outputs; never in a directory that holds anything else, never over a
// .gitignore that is there.
func TestOutputDirIgnoresItself(t *testing.T) {
	for _, tc := range []struct {
		name     string
		before   map[string]string // in the output directory; nil: it does not exist
		out      string            // the output directory below the project ("" : out)
		want     []string          // the output directory after one run
		ignoring string            // what .gitignore then holds ("" : none)
	}{
		{"made by the run", nil, "", []string{".gitignore", "ctx_001.md"}, OutputIgnore},
		{"made by the run, two levels", nil, ".ctx/out", []string{".gitignore", "ctx_001.md"}, OutputIgnore},
		{"only earlier outputs", map[string]string{"ctx_001.md": "old\n"}, "", []string{".gitignore", "ctx_001.md", "ctx_002.md"}, OutputIgnore},
		{"empty, the user's", map[string]string{}, "", []string{"ctx_001.md"}, ""},
		{"the user's files", map[string]string{"ctx_001.md": "old\n", "notes.md": "mine\n"}, "", []string{"ctx_001.md", "ctx_002.md", "notes.md"}, ""},
		{"another namespace", map[string]string{"other_001.md": "x\n"}, "", []string{"ctx_001.md", "other_001.md"}, ""},
		{"a .gitignore of the user's", map[string]string{".gitignore": "!keep\n"}, "", []string{".gitignore", "ctx_001.md"}, "!keep\n"},
		{"the project itself", map[string]string{}, ".", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tree(t, map[string]string{"a.py": "A = 1\n"})
			out := filepath.Join(dir, "out")
			if tc.out != "" {
				out = filepath.Join(dir, filepath.FromSlash(tc.out))
			}
			if tc.before != nil {
				if err := os.MkdirAll(out, 0o755); err != nil {
					t.Fatal(err)
				}
				for n, c := range tc.before {
					if err := os.WriteFile(filepath.Join(out, n), []byte(c), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			res, err := Stream(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "a.py"}}, OutputDir: out}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.out == "." {
				if _, err := os.Stat(filepath.Join(dir, ".gitignore")); err == nil {
					t.Errorf("a .gitignore in the project")
				}
				return
			}
			if got := names(t, out); !slices.Equal(got, tc.want) {
				t.Errorf("the output directory holds %v, want %v", got, tc.want)
			}
			b, err := os.ReadFile(filepath.Join(out, ".gitignore"))
			if string(b) != tc.ignoring || (tc.ignoring == "") != os.IsNotExist(err) {
				t.Errorf(".gitignore: %q, %v; want %q", b, err, tc.ignoring)
			}
			if filepath.Dir(res.OutputPath) != out {
				t.Errorf("written to %s", res.OutputPath)
			}
		})
	}
}

// A run that fails before its first byte (a budget too small) makes no
// output directory.
func TestOutputDirNotMadeByAFailedRun(t *testing.T) {
	dir := budgetTree(t)
	out := filepath.Join(dir, ".ctx", "out")
	_, err := Stream(context.Background(), Options{Engine: codeview.Engine(), BaseDir: dir, Files: budgetFiles(), OutputDir: out, MaxTokens: measure.Max(1)}, nil)
	if err == nil {
		t.Fatal("no error")
	}
	if _, err := os.Stat(filepath.Join(dir, ".ctx")); !os.IsNotExist(err) {
		t.Errorf(".ctx: %v", err)
	}
}

// Keep leaves the newest numbered outputs of the namespace and removes
// the older ones, and nothing else: not another namespace's, not a
// directory or a link named like an output, not a file named otherwise.
func TestOutputKeep(t *testing.T) {
	for _, tc := range []struct {
		keep measure.Limit
		runs int
		want []string
	}{
		{measure.Max(3), 5, []string{"ctx_003.md", "ctx_004.md", "ctx_005.md"}},
		{measure.Max(1), 2, []string{"ctx_002.md"}},
		{measure.Max(10), 4, []string{"ctx_001.md", "ctx_002.md", "ctx_003.md", "ctx_004.md"}},
		// the zero Limit keeps them all; Max(0) keeps the file just written
		{measure.Limit{}, 4, []string{"ctx_001.md", "ctx_002.md", "ctx_003.md", "ctx_004.md"}},
		{measure.Max(0), 3, []string{"ctx_003.md"}},
	} {
		dir := tree(t, map[string]string{"a.py": "A = 1\n"})
		out := filepath.Join(dir, "out")
		others := []string{"ctx_001.md.bak", "ctx_x.md", "notctx_001.md", "other_001.md", "CTX_001.md", "notes.md"}
		if err := os.MkdirAll(filepath.Join(out, "ctx_000.md"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, n := range others {
			if err := os.WriteFile(filepath.Join(out, n), []byte("mine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(filepath.Join(dir, "a.py"), filepath.Join(out, "ctx_0000.md")); err != nil {
			t.Fatal(err)
		}
		o := Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "a.py"}}, OutputDir: out, Keep: tc.keep}
		for range tc.runs {
			if _, err := Stream(context.Background(), o, nil); err != nil {
				t.Fatal(err)
			}
		}
		want := append(append([]string{"CTX_001.md", "ctx_000.md/", "ctx_0000.md@"}, others[:3]...), tc.want...)
		want = append(want, "notes.md", "other_001.md")
		slices.Sort(want)
		if got := names(t, out); !slices.Equal(got, want) {
			t.Errorf("keep %s, %d runs: the output directory holds\n%v\nwant\n%v", tc.keep, tc.runs, got, want)
		}
	}
}
