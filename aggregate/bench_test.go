package aggregate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
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
// figures are in the package documentation's "Performance" section.
func BenchmarkRun(b *testing.B) {
	dir := benchTree(b, 100)
	for _, view := range []aggregate.ViewMode{aggregate.ViewFull, aggregate.ViewSkeleton, aggregate.ViewOutline, aggregate.ViewSummary} {
		for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
			b.Run(fmt.Sprintf("%s/workers=%d", view, workers), func(b *testing.B) {
				opts := aggregate.Options{
					BaseDir:     dir,
					Files:       []aggregate.FileItem{{Path: "**/*.py", ViewMode: view}, {Path: "**/*.go", ViewMode: view}},
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
