package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
	return 2000, 8000, "ctx's defaults"
}

// Template returns a commented ctx.toml for the profile (generic when
// name is ""), as `ctx init` writes it: the agent and profile, the shared
// file, a budget for what ctx sends, the audit thresholds suited to the
// agent, and every other table commented out with what it does.
func Template(name profile.Name) string {
	if name == "" {
		name = profile.Generic
	}
	layer, total, why := thresholdsFor(name)
	var b strings.Builder
	fmt.Fprintf(&b, `# ctx.toml: what an AI agent working in this project is given, and what it may cost.
# Reference: docs/config.md of ctx. Check it with:  ctx audit --check

agent = %q
`, string(name))
	if name == profile.Generic {
		b.WriteString(`# profile = "claude"     # codex, claude, gemini, copilot or cursor: list what that agent
#                         # loads by itself, so ctx never sends it twice
`)
	} else {
		fmt.Fprintf(&b, "profile = %q        # what %s loads by itself is listed, never sent twice\n", string(name), string(name))
	}
	fmt.Fprintf(&b, `
# The shared instruction file (default: $AGENTS_GLOBAL_MD, then ~/.config/agents/GLOBAL.md).
# shared_path = false     # keep the audit independent of the machine it runs on

# Files the agent loads by itself that no profile knows of.
# native_paths = ["docs/agent-notes.md"]

# A budget for what ctx sends, per source id or kind (here: AGENTS.md and CLAUDE.md when
# ctx sends them rather than the agent loading them itself).
[budgets.project]
max_lines = 200           # most agents advise instruction files under 200 lines

[audit]
layer_tokens = %d       # %s
total_tokens = %d       # what ctx sends in total

# Project files to send with the instructions (ctx aggregate; docs/config.md, [files]).
# [files]
# paths = ["README.md", "src/**/*.go"]
# max_tokens = 8000

# The conversation so far (ctx messages; docs/config.md, [discussion]).
# [discussion]
# history = "history.json"
`, layer, why, total)
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
	p := filepath.Join(dir, FileName)
	if _, err := os.Lstat(p); err == nil {
		return p, ErrExists
	}
	// a few kilobytes: no context to stop it
	if err := atomicfile.CreateExclusive(context.Background(), p, []byte(Template(name)), 0o644); err != nil {
		if errors.Is(err, os.ErrExist) {
			return p, ErrExists
		}
		return p, err
	}
	return p, nil
}
