package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ctxaudit/ctx/measure"
)

// cmdMkrepo writes a realistic repository tree for the scripts to run ctx
// on, shaped after the public repositories ctx was tried on: a monorepo
// with a healthy 116-line AGENTS.md (2,231 tokens), a CLAUDE.md that
// imports it and a testing guide, 60 path-scoped .claude/rules, Cursor
// rules, Copilot instructions, nested CLAUDE.md and AGENTS.md per package,
// 1,100 TypeScript files, Python whose feature-flag names look like keys
// and one file with a real-looking credential: mkrepo DIR. A .git
// directory marks its root.
func cmdMkrepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkrepo DIR")
	}
	root := ts.MkAbs(args[0])
	write := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
		ts.Check(os.WriteFile(p, []byte(text), 0o644))
	}
	write(".git/HEAD", "ref: refs/heads/main\n")
	var agents strings.Builder
	agents.WriteString("# Agents\n\nThis monorepo holds the back end, the front end and the SDKs.\n\n")
	for i := 0; agents.Len() < 8900; i++ {
		fmt.Fprintf(&agents, "- Rule %d: run `pnpm test` in the package you changed, and explain the change.\n", i)
	}
	write("AGENTS.md", agents.String())
	write("CLAUDE.md", "@AGENTS.md\n\n# Claude\n\nRead @docs/claude/testing.md before you change a test.\n")
	write("docs/claude/testing.md", "# Testing\n\nEvery package has its own jest config; run one package at a time.\n")
	for i := 0; i < 60; i++ {
		write(fmt.Sprintf(".claude/rules/backend/legacy-model-migration-patterns-%02d.md", i),
			fmt.Sprintf("---\npaths:\n  - \"packages/back-end/src/models/model%02d/**/*.ts\"\n---\n# Migration %d\n\nKeep the old field until every reader moved.\n", i, i))
	}
	for i := 0; i < 10; i++ {
		write(fmt.Sprintf(".cursor/rules/front-end-component-conventions-%02d.mdc", i),
			fmt.Sprintf("---\ndescription: Components %d\nglobs: packages/front-end/components/c%02d/**/*.tsx\nalwaysApply: false\n---\nUse the design system.\n", i, i))
	}
	write(".github/copilot-instructions.md", "# Copilot\n\nFollow AGENTS.md.\n")
	write(".github/instructions/python.instructions.md", "---\napplyTo: \"**/*.py\"\n---\nType every function.\n")
	write("packages/back-end/CLAUDE.md", "# Back end\n\nThe API is in src/api; migrations in src/models.\n")
	write("packages/back-end/AGENTS.md", "# Back end\n\nRun `pnpm --filter back-end test`.\n")
	write("packages/front-end/CLAUDE.md", "# Front end\n\nComponents are in components/; stories beside them.\n")
	write("packages/core/README.md", "# Core\n\nShared types.\n")
	body := strings.Repeat("  // keep the handler small, and its errors typed\n", 20)
	for m := 0; m < 50; m++ {
		for f := 0; f < 22; f++ {
			write(fmt.Sprintf("packages/back-end/src/models/model%02d/part%02d.ts", m, f),
				fmt.Sprintf("export function handler%02d_%02d(input: string): string {\n%s  return input;\n}\n", m, f, body))
		}
	}
	write("packages/sdk/python/flags.py", "PRICING_PHASE_1_FLAG_KEY = \"pricing-phase-1-limits\"\nAPI_KEY_HEADER = \"x-api-key\"\nSECRET_NAME = \"growthbook-api-secret\"\n")
	write("packages/sdk/python/client.py", "import os\n\nAWS_KEY = \"AKIAJPJOMKEFOIUC5LGT\"  # fake\n\ndef connect():\n    return os.environ[\"GB_HOST\"]\n")
}

// cmdMaxTokens checks that a file holds at most N tokens by ctx's default
// estimator: maxtokens FILE N.
func cmdMaxTokens(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: maxtokens FILE N")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	limit, err := strconv.Atoi(args[1])
	ts.Check(err)
	n := measure.Default().Tokens(b)
	if over := n > limit; over != neg {
		ts.Fatalf("%s holds %d tokens, limit %d", args[0], n, limit)
	}
}
