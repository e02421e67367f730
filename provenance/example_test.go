package provenance_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/provenance"
)

// Store a relative manifest, change the project, and verify the manifest
// against it: AGENTS.md changed and CLAUDE.md appeared.
func ExampleVerify() {
	dir, err := os.MkdirTemp("", "ctx-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	dir, _ = filepath.EvalSymlinks(dir)
	writeFile := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	writeFile("AGENTS.md", "Run the tests.\n")
	opts := manifest.Options{
		Discover:      discover.Options{Agent: "codex", ProjectDir: dir, Home: dir, SharedMode: discover.SharedDisabled},
		RelativePaths: true,
	}
	stored, err := manifest.Build(context.Background(), opts)
	if err != nil {
		log.Fatal(err)
	}

	writeFile("AGENTS.md", "Run the tests, then the linters.\n")
	writeFile("CLAUDE.md", "Claude rules.\n")
	rep, err := provenance.Verify(context.Background(), stored, opts)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range rep.Rows {
		fmt.Printf("%s %s: %s → %s\n", r.ID, r.State, r.OldStatus, r.NewStatus)
	}
	if err := provenance.WriteVerify(os.Stdout, rep, provenance.FormatTable, 0); err != nil {
		log.Fatal(err)
	}
	// Output:
	// project_agents changed: available → available
	// project_claude appeared: missing → available
	// +----------+----------------+----------+----------+-----------+
	// | state    | id             | old      | new      | path      |
	// +----------+----------------+----------+----------+-----------+
	// | changed  | project_agents | 95333927 | 06ef3b50 | AGENTS.md |
	// | appeared | project_claude | missing  | e3595b47 | CLAUDE.md |
	// +----------+----------------+----------+----------+-----------+
	// drift: 2 of 2 rows (1 changed, 1 appeared)
}

// Compare two manifests of the same project: a source was added.
func ExampleDiff() {
	dir, err := os.MkdirTemp("", "ctx-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	note := "Prefer small functions.\n"
	opts := manifest.Options{Discover: discover.Options{Agent: "codex", ProjectDir: dir, NoDiscover: true}}
	old, err := manifest.Build(context.Background(), opts)
	if err != nil {
		log.Fatal(err)
	}
	opts.Discover.Extras = []discover.Extra{{ID: "style", Kind: "memory", Text: &note}}
	cur, err := manifest.Build(context.Background(), opts)
	if err != nil {
		log.Fatal(err)
	}
	rep, err := provenance.Diff(old, cur, provenance.DiffOptions{Home: dir})
	if err != nil {
		log.Fatal(err)
	}
	if err := provenance.WriteDiff(os.Stdout, rep, provenance.FormatTable, 0); err != nil {
		log.Fatal(err)
	}
	// Output:
	// +-------+--------+-----+--------------------+
	// | id    | change | old | new                |
	// +-------+--------+-----+--------------------+
	// | style | added  | -   | included, 6 tokens |
	// +-------+--------+-----+--------------------+
	// sources: 1 added, 0 removed, 0 changed, 0 unchanged
	// emitted tokens: 0 → 6 (+6)
}
