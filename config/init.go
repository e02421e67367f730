package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/internal/atomicfile"
	"github.com/ctxaudit/ctx/profile"
)

// ErrExists is returned by [WriteTemplate] when the project already has a
// ctx.toml: ctx init never overwrites one.
var ErrExists = errors.New("already exists; ctx init never overwrites it")

// thresholdsFor are the audit thresholds [Template] suggests: a source
// over the agent's own per-file limit or advice is oversized.
func thresholdsFor(name profile.Name) (layer, total int, why string) {
	switch name {
	case profile.Claude:
		return 10000, 20000, "Claude Code warns about memory files above 40,000 characters, about 10,000 tokens"
	case profile.Codex:
		return 8192, 8192, "Codex keeps 32 KiB of its project documents in total, about 8,192 tokens"
	case profile.Copilot:
		return 1000, 8000, "Copilot code review reads 4,000 characters of each file, about 1,000 tokens"
	case profile.Cursor:
		return 4000, 8000, "Cursor advises rules under 500 lines, about 4,000 tokens"
	}
	return audit.DefaultLayerTokens, audit.DefaultTotalTokens, "ctx's default: Codex's 32 KiB, the tightest limit an agent enforces"
}

// Fit is what the project's instruction files measure, for [TemplateFor]:
// the template never sets a budget or a threshold that they already pass,
// so that ctx audit --check does not fail on the configuration it was
// given (what the agents themselves cut or refuse still fails it).
type Fit struct {
	// MaxLines and MaxTokens are those of the largest project source
	// (AGENTS.md, CLAUDE.md) ctx sends; Name names it.
	MaxLines, MaxTokens int
	Name                string
	// TotalTokens is what ctx sends in all.
	TotalTokens int
}

// roundUp rounds n up to a multiple of step.
func roundUp(n, step int) int { return (n + step - 1) / step * step }

// Template returns a commented ctx.toml for the profile (generic when
// name is ""), as `ctx init` writes it with nothing measured: see
// [TemplateFor].
func Template(name profile.Name) string { return TemplateFor(name, Fit{}) }

// TemplateFor returns a commented ctx.toml for the profile (generic when
// name is ""), as `ctx init` writes it: the profile (the agent defaults to
// it), the shared file, a budget for what ctx sends, the audit thresholds
// suited to the agent, every one raised to fit the project's own files,
// and every other table commented out with what it does.
func TemplateFor(name profile.Name, fit Fit) string {
	if name == "" {
		name = profile.Generic
	}
	layer, total, why := thresholdsFor(name)
	if fit.MaxTokens > layer {
		why = fmt.Sprintf("raised from %d to fit %s (%d tokens)", layer, fit.Name, fit.MaxTokens)
		layer = roundUp(fit.MaxTokens+fit.MaxTokens/10, 100)
	}
	totalWhy := "what ctx sends in total"
	if fit.TotalTokens > total {
		totalWhy = fmt.Sprintf("raised from %d to fit what ctx sends here (%d tokens)", total, fit.TotalTokens)
		total = roundUp(fit.TotalTokens+fit.TotalTokens/10, 100)
	}
	lines, linesWhy := 200, "most agents advise instruction files under 200 lines"
	if fit.MaxLines > lines {
		lines = roundUp(fit.MaxLines+fit.MaxLines/10, 50)
		linesWhy = fmt.Sprintf("raised from 200 to fit %s (%d lines); most agents advise under 200", fit.Name, fit.MaxLines)
	}
	var b strings.Builder
	b.WriteString(`# ctx.toml: what an AI agent working in this project is given, and what it may cost.
# Reference: docs/config.md of ctx. Check it with:  ctx audit --check

`)
	if name == profile.Generic {
		b.WriteString(`# profile = "claude"     # codex, claude, gemini, copilot or cursor: list what that agent
#                         # loads by itself, so ctx never sends it twice (the agent is the profile)
`)
	} else {
		fmt.Fprintf(&b, "profile = %q        # the agent: what %s loads by itself is listed, never sent twice\n", string(name), string(name))
	}
	fmt.Fprintf(&b, `
# The shared instruction file (default: $AGENTS_GLOBAL_MD, then ~/.config/agents/GLOBAL.md).
# shared_path = false     # keep the audit independent of the machine it runs on

# Files the agent loads by itself that no profile knows of.
# native_paths = ["docs/agent-notes.md"]

# A budget for what ctx sends, per source id or kind (here: AGENTS.md and CLAUDE.md when
# ctx sends them rather than the agent loading them itself).
[budgets.project]
max_lines = %d           # %s

[audit]
layer_tokens = %d       # %s
total_tokens = %d       # %s

# Project files to send with the instructions (ctx aggregate; docs/config.md, [files]).
# [files]
# paths = ["README.md", "src/**/*.go"]
# max_tokens = 8000

# The conversation so far (ctx history; docs/config.md, [history]).
# [history]
# history = "history.json"
`, lines, linesWhy, layer, why, total, totalWhy)
	return b.String()
}

// InitProfile returns the profile `ctx init` writes for the project in dir
// when none is asked for: that of the one agent whose own instruction files
// dir has (profile.Detect), and what was found; generic when dir has none,
// or the files of several agents (found then lists them all).
func InitProfile(dir string) (name profile.Name, found []profile.Detected) {
	found = profile.Detect(dir)
	if len(found) == 1 {
		return found[0].Profile, found
	}
	return profile.Generic, found
}

// WriteTemplate writes [Template] of the profile to dir/ctx.toml, which
// must not exist (then the error is [ErrExists], without the path); the
// file is written whole or not at all. It returns the path of the file.
func WriteTemplate(dir string, name profile.Name) (string, error) {
	return WriteTemplateFor(dir, name, Fit{})
}

// WriteTemplateFor is [WriteTemplate] of [TemplateFor] with fit.
func WriteTemplateFor(dir string, name profile.Name, fit Fit) (string, error) {
	p := filepath.Join(dir, FileName)
	if _, err := os.Lstat(p); err == nil {
		return p, ErrExists
	}
	// a few kilobytes: no context to stop it
	if err := atomicfile.CreateExclusive(context.Background(), p, []byte(TemplateFor(name, fit)), 0o644); err != nil {
		if errors.Is(err, os.ErrExist) {
			return p, ErrExists
		}
		return p, err
	}
	return p, nil
}
