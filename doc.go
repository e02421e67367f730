// Package ctx is the map of the ctx library: what an agent runtime calls
// to learn exactly what its agent is given as context, where every byte came
// from, and what it costs. This package has no code; the work is done by the
// packages below, and the ctx command (cmd/ctx) is a thin shell over them,
// so a program that makes these calls gets the bytes the command prints.
//
// # From a directory to a manifest, a rendered context and an audit
//
// Four calls take a project directory to everything `ctx manifest`,
// `ctx render` and `ctx audit --format json` print:
//
//  1. config.LoadProject finds the project and reads its ctx.toml (none
//     is fine), strictly, with the command's defaults (home directory,
//     environment), and returns a config.Project.
//  2. manifest.Build with config.Project.ManifestOptions discovers,
//     reads, deduplicates and budgets the instruction files, aggregates the
//     project files and builds the history: a manifest.Manifest, which
//     manifest.Encode writes as `ctx manifest` does.
//  3. render.Text returns the text the agent is given.
//  4. audit.RunContext with config.Project.AuditOptions (thresholds,
//     secret scanner) returns the findings and totals, an audit.Report,
//     which audit.Write prints as a table, markdown, JSON, GitHub
//     workflow commands or SARIF.
//
// In Go:
//
//	p, err := config.LoadProject(config.ProjectOptions{Dir: dir})
//	m, err := manifest.Build(ctx, p.ManifestOptions())
//	text := render.Text(m)
//	ao, err := p.AuditOptions()
//	rep, err := audit.RunContext(ctx, m, ao)
//	err = audit.Write(os.Stdout, rep, audit.FormatJSON, audit.WriteOptions{Home: p.Home})
//	if rep.Fails(audit.Warning) { ... } // what `ctx audit --check` fails on
//
// Every option may be changed between the calls, as the command's flags do:
// ManifestOptions returns a manifest.Options (Profile, Estimator, Budgets,
// Files, History, ...). The program examples/runtime makes exactly these
// calls (go run ./examples/runtime -C DIR audit prints the bytes of
// ctx audit --format json), and a test compares its output byte for byte with the command's;
// Example (go test -run Example .) runs them on a temporary project.
//
// # Which package does what
//
//   - config: ctx.toml, strictly decoded, turned into the options of every
//     stage (config.Project); the only package that knows ctx.toml.
//   - discover: the ordered candidate sources, without reading them.
//   - profile: what each agent (Claude Code, Codex, Gemini CLI, Copilot,
//     Cursor) loads by itself, its natives.
//   - manifest: the record: sources, decisions, budgets, BLAKE3 hashes,
//     aggregated files and history; strict manifest.Decode.
//   - render: the context text of a manifest.
//   - audit: findings and totals, and every output format (audit.Document
//     is the JSON document, for runtimes to decode); audit.Agents and
//     audit.WriteMatrix hold each instruction file against each agent.
//   - aggregate: project files in their views (full, skeleton, outline,
//     summary, masked, custom slices) under a token budget, as
//     `ctx aggregate` writes them (aggregate.Run, aggregate.Stream).
//   - history: the chat history to send, with what was dropped and why
//     (history.Build), as `ctx history` builds it.
//   - provenance: a stored manifest against the files now
//     (provenance.Verify) and two manifests compared (provenance.Diff), with
//     WriteVerify and WriteDiff for `ctx verify` and `ctx diff`.
//   - report: the HTML page of `ctx report` (report.Write).
//   - measure: bytes, characters, lines, the token estimators, BLAKE3, and
//     measure.Limit, every bound on a count: its zero value is no limit,
//     measure.Max(0) a limit of zero (docs/architecture.md, "Limits").
//   - secrets: what ctx asks of a credential scanner, the allowlist and the
//     redaction; secrets/gitleaks is the scanner, with gitleaks' rules.
//   - cache: the directory of views and token counts that
//     aggregate.Options.Cache takes (cache.Open; cache.DefaultDir is
//     $CTX_CACHE_DIR, else the user cache directory).
//   - mcpserver: the MCP server of `ctx mcp` (mcpserver.New, an *mcp.Server
//     of the official Go SDK; Serve runs it on streams).
//   - observe: the loopback proxy of `ctx observe`.
//   - schemas: the embedded JSON Schemas of the manifest and of observations.
//
// The core (manifest, render, audit) builds without cgo and links neither
// tree-sitter nor gitleaks; the views and the scanner are plugged in through
// their options (internal/archtest checks it). Library packages never print
// or exit, take a context.Context for long work and keep no global state.
// docs/architecture.md says which package decides each rule; the ctx.toml
// keys are in docs/config.md and the manifest's fields in docs/manifest.md.
package ctx
