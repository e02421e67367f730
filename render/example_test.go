package render_test

import (
	"fmt"

	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/render"
)

// Render joins the fragments of the included sources with a blank line.
func ExampleText() {
	m := &manifest.Manifest{
		SchemaVersion: manifest.SchemaVersion,
		Sources: []manifest.Source{
			{ID: "shared", Included: true},
			{ID: "project_claude", Reason: manifest.ReasonFallbackNotSelected},
			{ID: "project_agents", Included: true},
		},
		Fragments: manifest.Fragments{
			{ID: "shared", Text: "Be brief.\n"},
			{ID: "project_claude", Text: ""},
			{ID: "project_agents", Text: "Run the tests."},
		},
	}
	fmt.Printf("%q\n", render.Text(m))
	// Output:
	// "Be brief.\n\n\nRun the tests."
}
