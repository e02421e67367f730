package manifest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
)

// BenchmarkBuild builds a manifest of 200 file sources (a tenth of them
// duplicates) under a kind budget: the work `ctx audit` does on every run.
func BenchmarkBuild(b *testing.B) {
	dir := b.TempDir()
	var extras []discover.Extra
	for i := 0; i < 200; i++ {
		name := fmt.Sprintf("s%03d.md", i)
		body := fmt.Sprintf("# Source %d\n\n%s", i%180, string(make([]byte, 0)))
		for j := 0; j < 40; j++ {
			body += fmt.Sprintf("line %d of source %d: keep the context small and explicit.\n", j, i%180)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		p := name
		extras = append(extras, discover.Extra{ID: name, Kind: "memory", Path: &p})
	}
	opts := manifest.Options{
		Discover: discover.Options{Agent: "a", ProjectDir: dir, Home: dir, SharedMode: discover.SharedDisabled, Extras: extras},
		Budgets:  manifest.Budgets{{Name: "memory", Budget: manifest.Budget{MaxChars: measure.Max(100000)}}},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := manifest.Build(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
	}
}
