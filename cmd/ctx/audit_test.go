package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/internal/goldenfile"
)

// TestOwnAuditFits: the table of this repository's own audit (its
// AGENTS.md, CLAUDE.md and ctx.toml; `go run ./cmd/ctx audit` in a clone)
// fits 100 columns, the width used when stdout is not a terminal, and says
// what a reader needs: decisions, tokens, budget use and the message.
func TestOwnAuditFits(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"ctx", "audit", "-C", "../.."}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	for i, line := range strings.Split(out, "\n") {
		if w := utf8.RuneCountInString(line); w > 100 {
			t.Errorf("line %d is %d columns wide: %q", i+1, w, line)
		}
	}
	for _, want := range []string{
		"| id             | decision  |",
		"| project_agents | included  |",
		"| project_claude | same_path |",
		"/200 lines | AGENTS.md |",
		"same file as project_agents, so not sent again",
		"\nLimits: 2,000 tokens per source, 8,000 in total\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// TestReadmeSample: the audit that README.md shows under "See it work" is
// the one ctx prints for this repository. CTX_UPDATE=1 rewrites it.
func TestReadmeSample(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"ctx", "audit", "-C", "../.."}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	const readme = "../../README.md"
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	const before = "the findings, and the total:\n\n```\n"
	start := strings.Index(text, before)
	if start < 0 {
		t.Fatalf("README.md has no sample after %q", before)
	}
	start += len(before)
	end := start + strings.Index(text[start:], "```")
	if text[start:end] == stdout.String() {
		return
	}
	if goldenfile.Update() {
		if err := os.WriteFile(readme, []byte(text[:start]+stdout.String()+text[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's sample audit is not what ctx prints (CTX_UPDATE=1 go test ./cmd/ctx rewrites it):\n%s", stdout.String())
}
