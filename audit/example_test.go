package audit_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
)

// Audit a manifest in which one source repeats another and one file is
// missing.
func ExampleRun() {
	dir, err := os.MkdirTemp("", "ctx-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	rules, missing := "Use tabs.", "notes/missing.md"
	m, err := manifest.Build(context.Background(), manifest.Options{
		Discover: discover.Options{
			Agent: "corteza", ProjectDir: dir, NoDiscover: true,
			Extras: []discover.Extra{
				{ID: "style", Kind: "project", Text: &rules},
				{ID: "style-copy", Kind: "project", Text: &rules},
				{ID: "notes", Kind: "memory", Path: &missing},
			},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	rep, err := audit.Run(m, audit.DefaultThresholds(), nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range rep.Findings {
		fmt.Printf("%s %s %s %q\n", f.SourceID, f.Code, f.Severity, f.RelatedID)
	}
	fmt.Printf("total: %d chars, %d tokens; fails on warning: %v\n", rep.Total.Chars, rep.Total.Tokens, rep.Fails(audit.Warning))
	// Output:
	// style-copy same_content info "style"
	// notes missing warning ""
	// total: 9 chars, 3 tokens; fails on warning: true
}
