package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/atomicfile"
	"github.com/ctxaudit/ctx/internal/table"
	"github.com/ctxaudit/ctx/internal/version"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/render"
	"github.com/ctxaudit/ctx/schemas"
)

func coreCommands(e *env) []*cli.Command {
	return []*cli.Command{
		{
			Name:  "discover",
			Usage: "list the candidate instruction sources without reading them",
			Description: "Examples:\n" +
				"   ctx discover                        # with agent and paths from ./ctx.toml\n" +
				"   ctx discover --agent codex --workspace ../ws --native AGENTS.md",
			ArgsUsage: " ",
			Flags:     commonFlags(),
			Action:    func(c *cli.Context) error { return e.discover(c) },
		},
		{
			Name:  "manifest",
			Usage: "print the manifest as JSON, or write it with -o",
			Description: "Examples:\n" +
				"   ctx manifest --agent claude -o context.manifest.json\n" +
				"   ctx manifest -C ../service --no-shared",
			ArgsUsage: " ",
			Flags: append(commonFlags(),
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` (atomically) instead of stdout"}),
			Action: func(c *cli.Context) error { return e.manifest(c) },
		},
		{
			Name:  "render",
			Usage: "print the rendered context, or write it with -o",
			Description: "Examples:\n" +
				"   ctx render --agent claude > context.md\n" +
				"   ctx render --manifest context.manifest.json -o context.md",
			ArgsUsage: " ",
			Flags: append(commonFlags(),
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` (atomically) instead of stdout"},
				&cli.StringFlag{Name: "manifest", Usage: "render a stored manifest `FILE` instead of building one"}),
			Action: func(c *cli.Context) error { return e.render(c) },
		},
		{
			Name:  "audit",
			Usage: "report the sources, their sizes and decisions, and the findings",
			Description: "Examples:\n" +
				"   ctx audit                                   # a table in the terminal\n" +
				"   ctx audit --check                           # exit 1 on any warning (pre-commit, CI)\n" +
				"   ctx audit --format json --total-tokens 6000 # for agent runtimes\n" +
				"   ctx audit --manifest context.manifest.json --fail-on info --check",
			ArgsUsage: " ",
			Flags: append(commonFlags(),
				&cli.StringFlag{Name: "format", Value: "table", Usage: "`FORMAT`: table, json or markdown"},
				&cli.BoolFlag{Name: "check", Usage: "exit 1 when a finding at the --fail-on level exists"},
				&cli.StringFlag{Name: "fail-on", Value: "warning", Usage: "`LEVEL` that fails --check: info or warning"},
				&cli.StringFlag{Name: "manifest", Usage: "audit a stored manifest `FILE` instead of building one"},
				&cli.StringFlag{Name: "layer-tokens", Usage: "`N` tokens above which a source is oversized (or inf)"},
				&cli.StringFlag{Name: "total-tokens", Usage: "`N` tokens above which the total is oversized (or inf)"}),
			Action: func(c *cli.Context) error { return e.audit(c) },
		},
		{
			Name:   "schema",
			Usage:  "print the manifest JSON Schema",
			Action: func(c *cli.Context) error { _, err := e.stdout.Write(schemas.ManifestV1()); return err },
		},
		{
			Name:   "version",
			Usage:  "print the ctx version",
			Action: func(c *cli.Context) error { _, err := fmt.Fprintf(e.stdout, "ctx %s\n", version.Version); return err },
		},
	}
}

func noArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("%s takes no arguments, got %q", c.Command.Name, c.Args().First())
	}
	// a file flag given as '' would silently mean "none" (stdout, no stored
	// manifest, the default ctx.toml)
	for _, name := range []string{"config", "manifest", "output"} {
		if c.IsSet(name) && strings.TrimSpace(c.String(name)) == "" {
			return usagef("--%s: must not be empty", name)
		}
	}
	return nil
}

func (e *env) discover(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	s, err := loadSetup(c)
	if err != nil {
		return err
	}
	res, err := discover.Sources(c.Context, s.opts.Discover)
	if err != nil {
		return err
	}
	var rows [][]string
	for _, src := range res.Sources {
		exists := "text"
		path := ""
		if !src.IsText() {
			path = displayPath(src.Path, s.home)
			exists = "no"
			if _, err := os.Stat(src.Path); err == nil {
				exists = "yes"
			}
		}
		rows = append(rows, []string{src.ID, src.Kind, src.Delivery, path, exists})
	}
	return table.Write(e.stdout, []string{"id", "kind", "delivery", "path", "exists"}, rows)
}

// build loads the setup and builds the manifest.
func build(c *cli.Context) (*setup, *manifest.Manifest, error) {
	s, err := loadSetup(c)
	if err != nil {
		return nil, nil, err
	}
	m, err := manifest.Build(c.Context, s.opts)
	if err != nil {
		return nil, nil, s.buildError(err)
	}
	// the static prefix (aggregated files) first, the history last
	if err := addFiles(c, s, m); err != nil {
		return nil, nil, err
	}
	if err := addHistory(c, s, m); err != nil {
		return nil, nil, err
	}
	return s, m, nil
}

// readManifest reads and checks a stored manifest.
func readManifest(path string) (*manifest.Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read: %w", path, unwrapPath(err))
	}
	defer f.Close()
	m, err := manifest.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// output writes data to stdout, or atomically to the -o file.
func (e *env) output(c *cli.Context, data []byte) error {
	if o := c.String("output"); o != "" {
		return atomicfile.WriteFile(o, data, 0o644)
	}
	_, err := e.stdout.Write(data)
	return err
}

func (e *env) manifest(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	_, m, err := build(c)
	if err != nil {
		return err
	}
	data, err := manifest.Marshal(m)
	if err != nil {
		return err
	}
	return e.output(c, data)
}

func (e *env) render(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	var m *manifest.Manifest
	var err error
	if p := c.String("manifest"); p != "" {
		m, err = readManifest(p)
	} else {
		_, m, err = build(c)
	}
	if err != nil {
		return err
	}
	return e.output(c, []byte(render.Text(m)))
}

func (e *env) audit(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	format := c.String("format")
	switch format {
	case "table", "json", "markdown":
	default:
		return usagef("--format: must be table, json or markdown, not %q", format)
	}
	level := c.String("fail-on")
	if level != audit.Info && level != audit.Warning {
		return usagef("--fail-on: must be info or warning, not %q", level)
	}
	var s *setup
	var m *manifest.Manifest
	var err error
	home := homeDir()
	if p := c.String("manifest"); p != "" {
		m, err = readManifest(p)
		if err == nil {
			// [audit] thresholds still come from the configuration when there is one
			s, err = loadAuditConfig(c)
		}
	} else {
		s, m, err = build(c)
	}
	if err != nil {
		return err
	}
	th, err := s.thresholds(c)
	if err != nil {
		return err
	}
	rep, err := audit.Run(m, th, nil)
	if err != nil {
		return err
	}
	var out []byte
	switch format {
	case "json":
		out, err = auditJSON(rep, home)
	case "markdown":
		out, err = auditMarkdown(rep, home)
	default:
		out, err = auditTable(rep, home)
	}
	if err != nil {
		return err
	}
	if _, err := e.stdout.Write(out); err != nil {
		return err
	}
	if c.Bool("check") && rep.Fails(level) {
		n := 0
		for _, f := range rep.Findings {
			if level == audit.Info || f.Severity == audit.Warning {
				n++
			}
		}
		return &checkFailed{msg: fmt.Sprintf("check failed: %d finding(s) at or above %s", n, level)}
	}
	return nil
}

// loadAuditConfig reads only the configuration (for --manifest), so that
// [audit] thresholds apply; a missing agent is no error here, and the
// thresholds apply also when the file sets no agent.
func loadAuditConfig(c *cli.Context) (*setup, error) {
	abs, home, cfg, err := loadConfig(c)
	if err != nil {
		return nil, err
	}
	return &setup{projectDir: abs, cfg: cfg, home: home}, nil
}

func itoa(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}

func limit(l manifest.Limit) string {
	if l == nil {
		return "inf"
	}
	return strconv.FormatInt(*l, 10)
}

func sourcePath(s manifest.Source, home string) string {
	if s.Path == "" {
		return "(text)"
	}
	return displayPath(s.Path, home)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

var sourceHeader = []string{"id", "kind", "delivery", "status", "included", "reason", "chars", "lines", "tokens",
	"emitted tokens", "truncated", "budget", "omitted chars", "omitted lines", "path"}

func sourceRows(rep *audit.Report, home string) [][]string {
	var rows [][]string
	for _, s := range rep.Sources {
		budget := s.Budget
		if budget == "" {
			budget = "-"
		}
		rows = append(rows, []string{s.ID, s.Kind, s.Delivery, s.Status, yesNo(s.Included), s.Reason,
			itoa(s.SourceChars), itoa(s.SourceLines), itoa(s.SourceTokens), itoa(s.EmittedTokens),
			yesNo(s.Truncated), budget, strconv.Itoa(s.OmittedChars), strconv.Itoa(s.OmittedLines),
			sourcePath(s, home)})
	}
	return rows
}

var findingHeader = []string{"source", "code", "severity", "related"}

func findingRows(rep *audit.Report) [][]string {
	var rows [][]string
	for _, f := range rep.Findings {
		src, rel := f.SourceID, f.RelatedID
		if src == "" {
			src = "(total)"
		}
		if rel == "" {
			rel = "-"
		}
		rows = append(rows, []string{src, f.Code, f.Severity, rel})
	}
	return rows
}

func thresholdString(v float64) string {
	if v > 1e300 {
		return "inf"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func auditTable(rep *audit.Report, home string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "agent: %s\nestimator: %s\n\nSources\n", rep.Agent, rep.Estimator)
	if err := table.Write(&b, sourceHeader, sourceRows(rep, home)); err != nil {
		return nil, err
	}
	if err := filesTable(&b, rep.Manifest, home); err != nil {
		return nil, err
	}
	b.WriteString("\nFindings\n")
	if len(rep.Findings) == 0 {
		b.WriteString("none\n")
	} else if err := table.Write(&b, findingHeader, findingRows(rep)); err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, "\nTotal: %d bytes, %d chars, %d lines, %d tokens (limits: %s per source, %s in total)\n",
		rep.Total.Bytes, rep.Total.Chars, rep.Total.Lines, rep.Total.Tokens,
		thresholdString(rep.Thresholds.LayerTokens), thresholdString(rep.Thresholds.TotalTokens))
	return b.Bytes(), nil
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func mdTable(b *bytes.Buffer, header []string, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for range header {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = mdEscape(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
}

func auditMarkdown(rep *audit.Report, home string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# ctx audit: %s\n\nEstimator: %s\n\n## Sources\n\n", mdEscape(rep.Agent), rep.Estimator)
	mdTable(&b, sourceHeader, sourceRows(rep, home))
	filesMarkdown(&b, rep.Manifest, home)
	b.WriteString("\n## Findings\n\n")
	if len(rep.Findings) == 0 {
		b.WriteString("None.\n")
	} else {
		mdTable(&b, findingHeader, findingRows(rep))
	}
	fmt.Fprintf(&b, "\n## Total\n\n%d bytes, %d chars, %d lines, %d tokens (limits: %s per source, %s in total)\n",
		rep.Total.Bytes, rep.Total.Chars, rep.Total.Lines, rep.Total.Tokens,
		thresholdString(rep.Thresholds.LayerTokens), thresholdString(rep.Thresholds.TotalTokens))
	return b.Bytes(), nil
}

// auditSource is one row of `ctx audit --format json`.
type auditSource struct {
	ID            string `json:"id"`
	Kind          string `json:"kind"`
	Delivery      string `json:"delivery"`
	Status        string `json:"status"`
	Included      bool   `json:"included"`
	Reason        string `json:"reason"`
	Chars         *int   `json:"chars"`
	Lines         *int   `json:"lines"`
	Tokens        *int   `json:"tokens"`
	EmittedTokens *int   `json:"emitted_tokens"`
	Truncated     bool   `json:"truncated"`
	Budget        string `json:"budget"`
	OmittedChars  int    `json:"omitted_chars"`
	OmittedLines  int    `json:"omitted_lines"`
	Path          string `json:"path"`
}

func auditJSON(rep *audit.Report, home string) ([]byte, error) {
	srcs := []auditSource{}
	for _, s := range rep.Sources {
		p := ""
		if s.Path != "" {
			p = displayPath(s.Path, home)
		}
		srcs = append(srcs, auditSource{ID: s.ID, Kind: s.Kind, Delivery: s.Delivery, Status: s.Status,
			Included: s.Included, Reason: s.Reason, Chars: s.SourceChars, Lines: s.SourceLines,
			Tokens: s.SourceTokens, EmittedTokens: s.EmittedTokens, Truncated: s.Truncated, Budget: s.Budget,
			OmittedChars: s.OmittedChars, OmittedLines: s.OmittedLines, Path: p})
	}
	doc := struct {
		Agent     string          `json:"agent"`
		Estimator string          `json:"estimator"`
		Sources   []auditSource   `json:"sources"`
		Files     []auditFile     `json:"files,omitempty"`
		Findings  []audit.Finding `json:"findings"`
		Total     struct {
			Bytes  int `json:"bytes"`
			Chars  int `json:"chars"`
			Lines  int `json:"lines"`
			Tokens int `json:"tokens"`
		} `json:"total"`
	}{Agent: rep.Agent, Estimator: rep.Estimator, Sources: srcs, Files: auditFiles(rep.Manifest, home), Findings: rep.Findings}
	doc.Total.Bytes, doc.Total.Chars, doc.Total.Lines, doc.Total.Tokens = rep.Total.Bytes, rep.Total.Chars, rep.Total.Lines, rep.Total.Tokens
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

var _ = io.Discard
