package ctx_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/config"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/render"
)

// The four calls, on a project with an AGENTS.md and a CLAUDE.md that is
// the same text: the manifest, the rendered context and the audit.
func Example() {
	dir, err := os.MkdirTemp("", "ctx-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	text := "# Working on todo\n\nRun the tests before you commit.\n"
	for _, name := range []string{"AGENTS.md", "CLAUDE.md"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			log.Fatal(err)
		}
	}

	ctx := context.Background()
	p, err := config.LoadProject(config.ProjectOptions{
		Dir: dir,
		// a home and an environment of their own, so that no shared file of
		// this machine is read; "" and nil are the process's
		Home:          dir,
		Getenv:        func(string) string { return "" },
		UserConfigDir: dir,
	})
	if err != nil {
		log.Fatal(err)
	}
	m, err := manifest.Build(ctx, p.ManifestOptions())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(render.Text(m))
	ao, err := p.AuditOptions()
	if err != nil {
		log.Fatal(err)
	}
	rep, err := audit.RunContext(ctx, m, ao)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range rep.Sources {
		fmt.Printf("%s: included %v, %s\n", s.ID, s.Included, s.Reason)
	}
	fmt.Printf("%d tokens; --check fails: %v\n", rep.Total.Tokens, rep.Fails(audit.Warning))
	// Output:
	// # Working on todo
	//
	// Run the tests before you commit.
	// shared: included false, missing
	// project_agents: included true, included
	// project_claude: included false, same_content
	// 13 tokens; --check fails: false
}
