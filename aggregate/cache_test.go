package aggregate_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/cache"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/secrets"
	"github.com/ctxaudit/ctx/secrets/gitleaks"
)

// cacheProject has files for every cached view.
func cacheProject(t *testing.T) string {
	t.Helper()
	var py, goSrc strings.Builder
	py.WriteString("\"\"\"A module.\"\"\"\nimport os\n\n")
	goSrc.WriteString("package p\n\nimport \"fmt\"\n\n")
	for i := range 30 {
		fmt.Fprintf(&py, "class C%d:\n    \"\"\"Doc %d.\"\"\"\n    def m(self, x):\n        return os.sep * x\n\n", i, i)
		fmt.Fprintf(&goSrc, "// F%d does a thing.\nfunc F%d(x int) string {\n\treturn fmt.Sprint(x * %d)\n}\n\n", i, i, i)
	}
	return testfs.Tree(t, map[string]string{
		"app.py":     py.String(),
		"lib/p.go":   goSrc.String(),
		"README.md":  "# Title\n\nText.\n\n## Part\n\nMore text.\n",
		"conf.toml":  "[server]\nport = 1\n",
		"notes.txt":  strings.Repeat("a line of notes\n", 50),
		"copy/p.go":  goSrc.String(), // the same bytes at another path
		"empty.py":   "",
		"binary.bin": "\x00\x01\x02",
	})
}

// cacheOptions are runs that use every cached view, the token budget and
// the estimators.
func cacheOptions(dir string) []aggregate.Options {
	o200k, _ := measure.ParseEstimator("o200k")
	files := func(mode aggregate.ViewMode) []aggregate.FileItem {
		return []aggregate.FileItem{{Path: "**", ViewMode: mode}}
	}
	return []aggregate.Options{
		{Engine: codeview.Engine(), BaseDir: dir, Files: files(aggregate.ViewSkeleton)},
		{Engine: codeview.Engine(), BaseDir: dir, Files: files(aggregate.ViewOutline), Estimator: o200k},
		{Engine: codeview.Engine(), BaseDir: dir, Files: files(aggregate.ViewSummary)},
		{Engine: codeview.Engine(), BaseDir: dir, Files: []aggregate.FileItem{
			{Path: "app.py", ViewMode: aggregate.ViewMasked, ASTMask: map[string]aggregate.MaskMode{"C1": "def", "C2": "sig"}},
			{Path: "lib/p.go", ViewMode: aggregate.ViewMasked, ASTSignatures: true},
			{Path: "copy/p.go", ViewMode: aggregate.ViewMasked, ASTDefinitions: true},
		}},
		{Engine: codeview.Engine(), BaseDir: dir, Files: files(aggregate.ViewFull), Estimator: o200k, MaxTokens: measure.Max(900)},
		{Engine: codeview.Engine(), BaseDir: dir, Files: files(aggregate.ViewFull), MaxTokens: measure.Max(300), MaxFileTokens: measure.Max(200)},
		{Engine: codeview.Engine(), BaseDir: dir, Files: files(aggregate.ViewFull), Focus: []string{"app.py"}},
	}
}

// stream returns the document and the items' metadata of a run.
func stream(o aggregate.Options) (string, error) {
	var b bytes.Buffer
	res, err := aggregate.Stream(context.Background(), o, &b)
	if err != nil {
		return "", err
	}
	for _, it := range res.Items {
		fmt.Fprintf(&b, "%s %s %s %s %+v %+v %s\n", it.Path, it.ViewMode, it.Status, it.Degraded, it.Source, it.Emitted, it.Truncated)
	}
	fmt.Fprintf(&b, "%+v\n", res.Summary())
	return b.String(), nil
}

// runAll runs every option with the cache c (nil: none).
func runAll(t *testing.T, dir string, c aggregate.Cache) []string {
	t.Helper()
	var out []string
	for _, o := range cacheOptions(dir) {
		if c != nil {
			o.Cache = c
		}
		doc, err := stream(o)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, doc)
	}
	return out
}

func openCache(t *testing.T, dir string) *cache.Dir {
	t.Helper()
	d, err := cache.Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// entries returns the cache's entry files.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	if len(out) == 0 {
		t.Fatal("the cache is empty")
	}
	return out
}

// The output with a cache is byte for byte the output without one: cold,
// warm, after a file changed, and after the cache was corrupted or cut
// short.
func TestCachedOutputIsIdentical(t *testing.T) {
	dir := cacheProject(t)
	cacheDir := t.TempDir()
	want := runAll(t, dir, nil)
	check := func(step string, c *cache.Dir, want []string) {
		t.Helper()
		got := runAll(t, dir, c)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s, run %d: with the cache\n%s\nwithout\n%s", step, i, got[i], want[i])
			}
		}
	}

	cold := openCache(t, cacheDir)
	check("cold", cold, want)
	if s := cold.Stats(); s.Puts == 0 {
		t.Fatalf("cold run stored nothing: %+v", s)
	}
	warm := openCache(t, cacheDir)
	check("warm", warm, want)
	if s := warm.Stats(); s.Hits == 0 || s.Puts != 0 {
		t.Fatalf("warm run: %+v, want hits and no puts", s)
	}

	// a file changes: its views are computed again
	if err := os.WriteFile(filepath.Join(dir, "app.py"), []byte("def changed(x):\n    return x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changed := runAll(t, dir, nil)
	if changed[0] == want[0] {
		t.Fatal("the change did not change the output")
	}
	check("changed", openCache(t, cacheDir), changed)

	// every entry corrupted: a byte flipped in the middle, or cut short
	for _, damage := range []func([]byte) []byte{
		func(b []byte) []byte { b[len(b)/2] ^= 0x55; return b },
		func(b []byte) []byte { return b[:len(b)/2] },
		func(b []byte) []byte { return nil },
	} {
		for _, p := range entries(t, cacheDir) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, damage(b), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		c := openCache(t, cacheDir)
		check("damaged", c, changed)
		if s := c.Stats(); s.Corrupt == 0 || s.Puts == 0 {
			t.Fatalf("damaged cache: %+v, want corrupt entries found and rewritten", s)
		}
		check("rewritten", openCache(t, cacheDir), changed)
	}
}

// Runs that share a cache directory at once, each with its own Dir as
// separate processes would have, all give the output of a run without it.
func TestCacheConcurrentRuns(t *testing.T) {
	dir := cacheProject(t)
	cacheDir := t.TempDir()
	want := runAll(t, dir, nil)
	var wg sync.WaitGroup
	got := make([][]string, 4)
	for r := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := cache.Open(cacheDir, 0)
			if err != nil {
				t.Error(err)
				return
			}
			var out []string
			for _, o := range cacheOptions(dir) {
				o.Cache = d
				doc, err := stream(o)
				if err != nil {
					t.Error(err)
					return
				}
				out = append(out, doc)
			}
			got[r] = out
			d.Close()
		}()
	}
	wg.Wait()
	for r := range got {
		for i := range want {
			if got[r][i] != want[i] {
				t.Fatalf("run %d, options %d: with the shared cache\n%s\nwithout\n%s", r, i, got[r][i], want[i])
			}
		}
	}
	// and the cache they filled gives the same again
	check := runAll(t, dir, openCache(t, cacheDir))
	for i := range want {
		if check[i] != want[i] {
			t.Fatalf("options %d: from the shared cache, the output differs", i)
		}
	}
}

// A cache shared by runs with and without redaction never serves one the
// other's views: a redacted run shows no secret from a view the plain run
// stored, and a plain run shows the file as it is, not a redacted view.
func TestCacheKeepsRedactedAndPlainApart(t *testing.T) {
	var src strings.Builder
	src.WriteString("KEY = \"" + fakePAT + "\"\n\n\ndef f(token=\"" + fakePAT + "\"):\n    return KEY\n\n")
	for i := range 120 {
		fmt.Fprintf(&src, "def g%d(x):\n    return x * %d\n\n", i, i)
	}
	dir := testfs.Tree(t, map[string]string{"conf.py": src.String()})
	sc, err := gitleaks.New(secrets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts := func(redact bool) aggregate.Options {
		o := aggregate.Options{Engine: codeview.Engine(), BaseDir: dir, Files: []aggregate.FileItem{{Path: "conf.py", ViewMode: aggregate.ViewSkeleton}}}
		if redact {
			o.Redact = sc
		}
		return o
	}
	without := map[bool]string{}
	for _, redact := range []bool{false, true} {
		doc, err := stream(opts(redact))
		if err != nil {
			t.Fatal(err)
		}
		without[redact] = doc
	}
	if !strings.Contains(without[false], fakePAT) || strings.Contains(without[true], fakePAT) {
		t.Fatal("the skeleton does not show the key, or redaction did not hide it")
	}
	for _, order := range [][]bool{{false, true}, {true, false}} {
		c := openCache(t, t.TempDir())
		for _, redact := range append(order, order...) {
			o := opts(redact)
			o.Cache = c
			doc, err := stream(o)
			if err != nil {
				t.Fatal(err)
			}
			if doc != without[redact] {
				t.Fatalf("redact=%v after %v with the cache:\n%s\nwant\n%s", redact, order, doc, without[redact])
			}
		}
		if s := c.Stats(); s.Hits == 0 {
			t.Fatalf("the cache was not used: %+v", s)
		}
	}
}
