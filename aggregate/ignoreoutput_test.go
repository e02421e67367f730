package aggregate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate/codeview"
)

// IgnoreOutput leaves exactly the output out of walks, whatever its name,
// and only when it lies below the base directory; named explicitly it is
// still read.
func TestIgnoreOutput(t *testing.T) {
	names := []string{"ctx-report.html", "pages/a*b [1].html", "pages/a?b.html", `pages/back\slash.html`, "pages/trailing .html ", "pages/!bang.html", "pages/#hash.html"}
	files := map[string]string{"keep.md": "k\n", "pages/aXb 1.html": "k\n", "pages/azb.html": "k\n"}
	for _, n := range names {
		files[n] = "out\n"
	}
	dir := tree(t, files)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(wd) })
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		o := Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "**"}}}
		o.IgnoreOutput(n) // relative to the working directory
		got := strings.Join(labels(build(t, o)), "|")
		if strings.Contains(got, n) {
			t.Errorf("%q is still aggregated: %s", n, got)
		}
		for _, k := range []string{"keep.md", "pages/aXb 1.html", "pages/azb.html"} {
			if !strings.Contains(got, k) {
				t.Errorf("ignoring %q left out %s too: %s", n, k, got)
			}
		}
		o.Files = []FileItem{{Path: n}}
		if got := labels(build(t, o)); len(got) != 1 || got[0] != n {
			t.Errorf("%q named explicitly: %v", n, got)
		}
	}
	// outside the base directory: no pattern
	for _, out := range []string{filepath.Join(filepath.Dir(dir), "page.html"), "../page.html", ""} {
		o := Options{Engine: codeview.Engine(), BaseDir: dir}
		o.IgnoreOutput(out)
		if len(o.IgnorePatterns) != 0 {
			t.Errorf("%q: %q", out, o.IgnorePatterns)
		}
	}
}
