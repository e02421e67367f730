package manifest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/testfs"
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

// sourceOptions are the options of n generated instruction sources
// (testfs.Sources) under a budget per kind.
func sourceOptions(tb testing.TB, n int) manifest.Options {
	tb.Helper()
	dir, srcs := testfs.Sources(tb, n)
	extras := make([]discover.Extra, len(srcs))
	for i, s := range srcs {
		extras[i] = discover.Extra{ID: s.ID, Kind: s.Kind}
		if s.Path != "" {
			extras[i].Path = &s.Path
		} else {
			extras[i].Text = &s.Text
		}
	}
	return manifest.Options{
		Discover: discover.Options{Agent: "a", ProjectDir: dir, Home: dir, SharedMode: discover.SharedDisabled,
			NoDiscover: true, Extras: extras},
		Budgets: manifest.Budgets{{Name: "memory", Budget: manifest.Budget{MaxLines: measure.Max(int64(n))}}},
	}
}

// Ten times the sources cost at most about ten times the allocations.
func TestBuildScalesLinearly(t *testing.T) {
	allocs := func(n int) float64 {
		opts := sourceOptions(t, n)
		return testing.AllocsPerRun(1, func() {
			if _, err := manifest.Build(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(100), allocs(1000)
	t.Logf("allocations: %.0f → %.0f (×%.1f)", small, large, large/small)
	if r := large / small; r > 12 {
		t.Errorf("10× the sources: %.1f× the allocations", r)
	}
}

// BenchmarkBuildSources builds the manifest of 100, 1,000 and 10,000
// instruction sources, files and texts with duplicates, as ctx.toml's
// [[sources]] declare them.
func BenchmarkBuildSources(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		opts := sourceOptions(b, n)
		b.Run(fmt.Sprintf("sources=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := manifest.Build(context.Background(), opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
