package config_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/config"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/render"
)

// Load a project's ctx.toml and do what `ctx manifest`, `ctx render` and
// `ctx audit` do: build the whole manifest (sources, aggregated files,
// history), render it, and audit it with the project's thresholds.
func Example() {
	dir, err := os.MkdirTemp("", "ctx-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	files := map[string]string{
		"ctx.toml":  "agent = \"codex\"\nshared_path = false\n\n[files]\npaths = [\"main.go\"]\n\n[audit]\ntotal_tokens = 20\n",
		"AGENTS.md": "Run go test before you commit.\n",
		"main.go":   "package main\n\nfunc main() {}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			log.Fatal(err)
		}
	}

	p, err := config.LoadProject(config.ProjectOptions{Dir: dir})
	if err != nil {
		log.Fatal(err) // names the file, line and field of a bad ctx.toml
	}
	opts := p.ManifestOptions() // change options here, as the command's flags do
	m, err := manifest.Build(context.Background(), opts)
	if err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(render.Text(m), "\n") {
		fmt.Println(strings.TrimSpace("| " + line))
	}

	rep, err := audit.Run(m, p.Thresholds(), nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range rep.Findings {
		fmt.Printf("finding: %s %s %s\n", f.SourceID, f.Code, f.Severity)
	}
	// Output:
	// | Run go test before you commit.
	// |
	// |
	// | ## Files
	// |
	// | ### `main.go`
	// |
	// | ```go
	// | package main
	// |
	// | func main() {}
	// | ```
	// |
	// finding: project_claude missing info
	// finding:  oversized_total warning
}
