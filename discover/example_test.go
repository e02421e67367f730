package discover_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/ctxaudit/ctx/discover"
)

// List the sources of a project with a workspace and one extra source placed
// between the discovered ones by its order. Nothing is read: missing files
// are listed too.
func ExampleSources() {
	dir, err := os.MkdirTemp("", "ctx-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	note, order := "A note.", 2.5
	res, err := discover.Sources(context.Background(), discover.Options{
		Agent: "corteza", ProjectDir: dir, WorkspaceDir: "ws",
		SharedMode: discover.SharedDisabled,
		Extras:     []discover.Extra{{ID: "note", Kind: "memory", Text: &note, Order: &order}},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range res.Sources {
		where := strings.TrimPrefix(c.Path, res.ProjectDir)
		if c.IsText() {
			where = "(text)"
		}
		fmt.Printf("%v %s %s %s\n", c.Order, c.ID, c.Kind, where)
	}
	// Output:
	// 1 project_agents project /AGENTS.md
	// 2 project_claude project /CLAUDE.md
	// 2.5 note memory (text)
	// 3 workspace_user shared /ws/USER.md
	// 4 workspace_soul identity /ws/SOUL.md
}
