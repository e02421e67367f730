package report_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"regexp"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/report"
)

// Write the page of a manifest with two inline sources, one cut by a
// budget, and read back its treemap's tiles and its largest section.
func ExampleWrite() {
	dir, err := os.MkdirTemp("", "ctx-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	rules := "# Rules\n\nKeep handlers small.\n\n## Tests\n\nEvery endpoint has a test, and every test names its endpoint.\n"
	note := "A note.\nA second line.\n"
	m, err := manifest.Build(context.Background(), manifest.Options{
		Discover: discover.Options{
			Agent: "codex", ProjectDir: dir, NoDiscover: true,
			Extras: []discover.Extra{
				{ID: "rules", Kind: "project", Text: &rules},
				{ID: "note", Kind: "memory", Text: &note},
			},
		},
		Budgets: manifest.Budgets{{Name: "memory", Budget: manifest.Budget{MaxLines: measure.Max(1)}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	rep, err := audit.RunContext(context.Background(), m, audit.Options{Thresholds: audit.DefaultThresholds()})
	if err != nil {
		log.Fatal(err)
	}
	var page bytes.Buffer
	if err := report.Write(context.Background(), &page, m, rep, report.Options{}); err != nil {
		log.Fatal(err)
	}
	for _, t := range regexp.MustCompile(`data-id="([^"]*)" data-tokens="([0-9]+)"`).FindAllStringSubmatch(page.String(), -1) {
		fmt.Printf("tile %s: %s tokens\n", t[1], t[2])
	}
	largest := regexp.MustCompile(`<td class="mono id">([^<]*)</td><td class="n">([0-9]+)</td><td><span class="mono">H([0-9])</span> ([^<]*)</td>`)
	fmt.Println(largest.FindStringSubmatch(page.String())[1:])
	fmt.Println(bytes.Contains(page.Bytes(), []byte("cut by budget memory: 15 chars, 1 line omitted")))
	// Output:
	// tile rules: 18 tokens
	// tile rules: 8 tokens
	// tile note: 2 tokens
	// [rules 5 2 Tests]
	// true
}
