package aggregate

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/measure"

	"github.com/ctxaudit/ctx/internal/testlane"
)

// largeTree writes n files in nested directories: Python, Go, markdown,
// text, a binary file now and then, of a few lines to a few hundred.
func largeTree(t *testing.T, n int) string {
	files := map[string]string{}
	for i := range n {
		dir := fmt.Sprintf("pkg%02d/sub%d", i%37, i%5)
		lines := 1 + (i*7919)%120
		var b strings.Builder
		var name string
		switch i % 7 {
		case 0, 1:
			name = fmt.Sprintf("%s/m%04d.py", dir, i)
			for j := range lines / 4 {
				fmt.Fprintf(&b, "def f%d(x):\n    \"\"\"Doc %d.\"\"\"\n    return x * %d\n\n", j, j, j)
			}
		case 2, 3:
			name = fmt.Sprintf("%s/g%04d.go", dir, i)
			b.WriteString("package p\n\n")
			for j := range lines / 4 {
				fmt.Fprintf(&b, "func F%d(x int) int {\n\treturn x * %d\n}\n\n", j, j)
			}
		case 4:
			name = fmt.Sprintf("%s/d%04d.md", dir, i)
			for j := range lines {
				fmt.Fprintf(&b, "## Part %d\n\nWords, `code` and ünïcode — %d.\n", j, j)
			}
		case 5:
			name = fmt.Sprintf("%s/t%04d.txt", dir, i)
			for j := range lines {
				fmt.Fprintf(&b, "line %d of text\n", j)
			}
		default:
			name = fmt.Sprintf("%s/b%04d.bin", dir, i)
			b.WriteString("\x00\x01\x02binary")
		}
		files[name] = b.String()
	}
	return tree(t, files)
}

// On a tree of 1,200 files every estimator's count of the document
// written stays within max_tokens, and the summary says what was written.
func TestBudgetLargeTree(t *testing.T) {
	testlane.Slow(t, "renders the views of 1,200 files six times")
	testlane.Heavy(t, "renders the views of 1,200 files six times")
	dir := largeTree(t, 1200)
	ctx := context.Background()
	ests, maxes := []string{"chars4", "o200k", "cl100k"}, []int64{1000, 50000}
	for _, name := range ests {
		est, err := measure.ParseEstimator(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, max := range maxes {
			var b bytes.Buffer
			o := Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "."}}, MaxTokens: measure.Max(max), Estimator: est,
				History: "### Discussion Excerpt 1\n\nUser: what changed?\n"}
			res, err := Stream(ctx, o, &b)
			if err != nil {
				t.Fatal(err)
			}
			n := est.Tokens(b.Bytes())
			s := res.Summary()
			t.Logf("%s max_tokens %d: %d tokens, %d bytes, %d files, %d degraded, %d omitted (%d unlisted)",
				name, max, n, b.Len(), s.Files, s.Degraded, s.Omitted, s.Unlisted)
			if int64(n) > max || s.Tokens != n {
				t.Errorf("%s max_tokens %d: %d tokens written, the summary says %d", name, max, n, s.Tokens)
			}
			if s.Omitted == 0 || !strings.HasSuffix(b.String(), HistorySection(o.History)+"\n") {
				t.Errorf("%s max_tokens %d: nothing omitted, or the history is not the end", name, max)
			}
		}
	}
}

// countingEstimator is chars4 that counts the bytes it is given: an
// estimator of the caller's own, counted piecewise as the exact ones are.
type countingEstimator struct{ n *atomic.Int64 }

func (c countingEstimator) Name() string { return "counting" }
func (c countingEstimator) Tokens(b []byte) int {
	c.n.Add(int64(len(b)))
	return (measure.Chars(b) + 3) / 4
}

// The budget counts each piece once: the bytes it gives the estimator grow
// with the files, not with the files times the document (no count of the
// whole document per step), whatever the number of files omitted.
func TestBudgetCountsPiecewise(t *testing.T) {
	ctx := context.Background()
	perByte := map[int]float64{}
	for _, n := range []int{200, 800} {
		dir := largeTree(t, n)
		var src int64
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if info, err := d.Info(); err == nil {
					src += info.Size()
				}
			}
			return nil
		})
		counted := new(atomic.Int64)
		o := Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "."}}, MaxTokens: measure.Max(1000), Estimator: countingEstimator{counted}}
		res, err := Stream(ctx, o, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Summary().Omitted < n/2 {
			t.Fatalf("%d files: only %d omitted", n, res.Summary().Omitted)
		}
		perByte[n] = float64(counted.Load()) / float64(src)
	}
	// every file and view is measured once (the file, its full block, and
	// its skeleton, outline and summary blocks when it is degraded): a few
	// times the source (about 5 here), and no more for four times the files
	if perByte[200] > 8 || perByte[800] > 8 || perByte[800] > 1.25*perByte[200] {
		t.Errorf("bytes counted per source byte: %v", perByte)
	}
}

// Go's source tree packed with --max-tokens 1000 stays within 1000 tokens
// (on a checkout of the ctx it was 443 KB).
func TestBudgetGoSourceTree(t *testing.T) {
	testlane.Slow(t, "packs Go's source tree")
	testlane.Heavy(t, "packs Go's source tree")
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	var b bytes.Buffer
	// two of its largest trees, 2,400 files of Go, C, assembly and data:
	// the whole of it (11,000 files) takes four times as long and holds
	// nothing these do not
	res, err := Stream(context.Background(), Options{Engine: codeview.Engine(), BaseDir: root,
		Files: []FileItem{{Path: "crypto"}, {Path: "runtime"}}, MaxTokens: measure.Max(1000)}, &b)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary()
	n := measure.Default().Tokens(b.Bytes())
	t.Logf("Go's crypto and runtime, max_tokens 1000: %d tokens, %d bytes, %d files, %d degraded, %d omitted", n, b.Len(), s.Files, s.Degraded, s.Omitted)
	if n > 1000 || s.Tokens != n || s.Omitted < 1000 {
		t.Errorf("%d tokens written (the summary says %d), %d omitted", n, s.Tokens, s.Omitted)
	}
}
