package manifest_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/render"
)

// Build a manifest from two inline sources, the second cut by a budget, and
// render the text the agent is given.
func ExampleBuild() {
	dir, err := os.MkdirTemp("", "ctx-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	note, rules := "A note.\nA second line.\n", "R objects persist across turns."
	m, err := manifest.Build(context.Background(), manifest.Options{
		Discover: discover.Options{
			Agent: "corteza", ProjectDir: dir, NoDiscover: true,
			Extras: []discover.Extra{
				{ID: "runtime", Kind: "runtime", Text: &rules},
				{ID: "note", Kind: "memory", Text: &note},
			},
		},
		Budgets: manifest.Budgets{{Name: "memory", Budget: manifest.Budget{MaxLines: measure.Max(1)}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range m.Sources {
		fmt.Printf("%s: %s, %d of %d chars, truncated %v\n", s.ID, s.Reason, *s.EmittedChars, *s.SourceChars, s.Truncated)
	}
	fmt.Printf("%q\n", render.Text(m))
	// Output:
	// runtime: included, 31 of 31 chars, truncated false
	// note: included, 8 of 23 chars, truncated true
	// "R objects persist across turns.\n\nA note.\n"
}
