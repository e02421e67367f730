package audit_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"

	"github.com/ctxaudit/ctx/internal/testlane"
)

// sourcesProject is n instruction sources as ctx.toml's [[sources]]
// declare them (testfs.Sources: files and texts, copies, missing files),
// under a budget per kind, many of them with findings.
func sourcesProject(tb testing.TB, n int) manifest.Options {
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
		Discover: discover.Options{Agent: "claude", ProjectDir: dir, Home: dir, SharedMode: discover.SharedDisabled,
			NoDiscover: true, Extras: extras},
		Budgets: manifest.Budgets{{Name: "memory", Budget: manifest.Budget{MaxLines: measure.Max(int64(n))}}},
	}
}

// auditRun is what `ctx audit` does after loading ctx.toml: build the
// manifest, audit it (secrets too) and write the table.
func auditRun(tb testing.TB, opts manifest.Options) {
	m, err := manifest.Build(context.Background(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	rep, err := audit.Run(m, audit.DefaultThresholds(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	var b bytes.Buffer
	if err := audit.Write(&b, rep, audit.FormatTable, audit.WriteOptions{Home: "/nonexistent"}); err != nil {
		tb.Fatal(err)
	}
}

// Ten times the sources cost at most about ten times the work: counted in
// allocations, which do not depend on the machine or its load.
func TestAuditScalesLinearly(t *testing.T) {
	testlane.Slow(t, "builds 1,100 sources")
	auditRun(t, sourcesProject(t, 10)) // compile the secret rules first
	allocs := func(n int) float64 {
		opts := sourcesProject(t, n)
		return testing.AllocsPerRun(1, func() { auditRun(t, opts) })
	}
	small, large := allocs(100), allocs(1000)
	t.Logf("allocations: %.0f → %.0f (×%.1f)", small, large, large/small)
	if r := large / small; r > 12 {
		t.Errorf("10× the sources: %.1f× the allocations", r)
	}
}

// BenchmarkAudit builds, audits and writes the table of 100, 1,000 and
// 10,000 sources.
//
//	go test -run '^$' -bench Audit ./audit
func BenchmarkAudit(b *testing.B) {
	auditRun(b, sourcesProject(b, 10))
	for _, n := range []int{100, 1000, 10000} {
		opts := sourcesProject(b, n)
		b.Run(fmt.Sprintf("sources=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				auditRun(b, opts)
			}
		})
	}
}
