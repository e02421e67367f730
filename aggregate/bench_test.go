package aggregate_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/cache"
	"github.com/ctxaudit/ctx/measure"
)

// benchTree writes n Python and n Go files of about 120 lines each.
func benchTree(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	for i := 0; i < n; i++ {
		var py, g strings.Builder
		fmt.Fprintf(&py, "\"\"\"Module %d.\"\"\"\nimport os\n\n", i)
		fmt.Fprintf(&g, "package p%d\n\nimport \"fmt\"\n\n", i)
		for j := 0; j < 10; j++ {
			fmt.Fprintf(&py, "class C%d:\n    \"\"\"Doc.\"\"\"\n    def m(self, x):\n        y = x * %d\n        if y > 3:\n            return os.sep\n        return str(y)\n\n", j, j)
			fmt.Fprintf(&g, "// F%d does a thing.\nfunc F%d(x int) string {\n\tif x > %d {\n\t\treturn fmt.Sprint(x)\n\t}\n\treturn \"\"\n}\n\n", j, j, j)
		}
		for name, body := range map[string]string{fmt.Sprintf("m%03d.py", i): py.String(), fmt.Sprintf("g%03d.go", i): g.String()} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return dir
}

// BenchmarkRun aggregates 200 files per view and worker count; the
// figures are in docs/development.md, "Performance".
func BenchmarkRun(b *testing.B) {
	dir := benchTree(b, 100)
	for _, view := range []aggregate.ViewMode{aggregate.ViewFull, aggregate.ViewSkeleton, aggregate.ViewOutline, aggregate.ViewSummary, aggregate.ViewMasked} {
		for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
			b.Run(fmt.Sprintf("%s/workers=%d", view, workers), func(b *testing.B) {
				// the masked view: every signature
				sig := view == aggregate.ViewMasked
				opts := aggregate.Options{Engine: codeview.Engine(),
					BaseDir: dir,
					Files: []aggregate.FileItem{{Path: "**/*.py", ViewMode: view, ASTSignatures: sig},
						{Path: "**/*.go", ViewMode: view, ASTSignatures: sig}},
					Concurrency: workers,
				}
				b.ReportAllocs()
				for b.Loop() {
					res, err := aggregate.Run(context.Background(), opts)
					if err != nil {
						b.Fatal(err)
					}
					if len(res.Items) != 200 {
						b.Fatalf("%d items", len(res.Items))
					}
				}
			})
		}
	}
}

// BenchmarkStream writes the full pack of 200 files as it is produced,
// with each estimator: what ctx aggregate --stdout does.
func BenchmarkStream(b *testing.B) {
	dir := benchTree(b, 100)
	for _, est := range []string{"chars4", "o200k"} {
		b.Run(est, func(b *testing.B) {
			e, _ := measure.ParseEstimator(est)
			e.Tokens([]byte("load the vocabulary"))
			opts := aggregate.Options{Engine: codeview.Engine(), BaseDir: dir, Files: []aggregate.FileItem{{Path: "**"}}, Estimator: e}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := aggregate.Stream(context.Background(), opts, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBudget degrades 200 files under a token budget so tight that
// every file goes down the whole ladder (skeleton, outline, summary,
// omitted), and under one that degrades a few.
func BenchmarkBudget(b *testing.B) {
	dir := benchTree(b, 100)
	for _, max := range []int64{1000, 60000} {
		b.Run(fmt.Sprintf("max_tokens=%d", max), func(b *testing.B) {
			opts := aggregate.Options{Engine: codeview.Engine(), BaseDir: dir, Files: []aggregate.FileItem{{Path: "**"}}, MaxTokens: measure.Max(max)}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := aggregate.Stream(context.Background(), opts, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCache renders the skeletons of 200 files with a cache
// directory: miss (an empty cache each time: views computed and stored)
// and hit (a cache filled once: views read and checked).
func BenchmarkCache(b *testing.B) {
	dir := benchTree(b, 100)
	opts := aggregate.Options{Engine: codeview.Engine(), BaseDir: dir, Files: []aggregate.FileItem{{Path: "**", ViewMode: aggregate.ViewSkeleton}}}
	run := func(b *testing.B, d *cache.Dir) {
		o := opts
		o.Cache = d
		if _, err := aggregate.Stream(context.Background(), o, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("miss", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			d, err := cache.Open(b.TempDir(), 0)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			run(b, d)
		}
	})
	b.Run("hit", func(b *testing.B) {
		d, err := cache.Open(b.TempDir(), 0)
		if err != nil {
			b.Fatal(err)
		}
		run(b, d)
		for b.Loop() {
			run(b, d)
		}
	})
}
