package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// fakeAgent is a stand-in for claude, codex and gemini in the scripts of
// ctx observe: it finds its model endpoint as the real agent does (the
// base-URL variable, or Codex's -c model provider), sends one request in
// the agent's wire format holding the agent's instruction file of the
// working directory the way the agent wraps it, prints the reply and exits
// with $FAKE_EXIT. $FAKE_OMIT=1 leaves the file out; $FAKE_CUT=N sends only
// its first N bytes. It reads its standard input when $FAKE_STDIN is set
// and prints it back, to show that the input passes through.
func fakeAgent(name string) func() {
	return func() {
		if os.Getenv("FAKE_STDIN") != "" {
			in, _ := io.ReadAll(os.Stdin)
			fmt.Printf("stdin: %s", in)
		}
		cwd, _ := os.Getwd()
		file := map[string]string{"claude": "CLAUDE.md", "codex": "AGENTS.md", "gemini": "GEMINI.md"}[name]
		text := ""
		if os.Getenv("FAKE_OMIT") == "" {
			b, err := os.ReadFile(filepath.Join(cwd, file))
			if err == nil {
				text = string(b)
				if n, err := strconv.Atoi(os.Getenv("FAKE_CUT")); err == nil && n < len(text) {
					text = text[:n]
				}
			}
		}
		path := filepath.Join(cwd, file)
		var url string
		var body any
		header := http.Header{}
		switch name {
		case "claude":
			url = os.Getenv("ANTHROPIC_BASE_URL") + "/v1/messages?beta=true"
			header.Set("x-api-key", os.Getenv("ANTHROPIC_API_KEY"))
			header.Set("User-Agent", "claude-cli/9.9.9 (fake)")
			var blocks []any
			if text != "" {
				blocks = append(blocks, map[string]any{"type": "text", "text": "<system-reminder>\nContents of " + path +
					" (project instructions, checked into the codebase):\n\n" + text + "\n</system-reminder>"})
			}
			blocks = append(blocks, map[string]any{"type": "text", "text": "hi"})
			body = map[string]any{"model": "claude-fake", "stream": true, "max_tokens": 10,
				"system":   []any{map[string]any{"type": "text", "text": "You are a fake agent."}},
				"tools":    []any{map[string]any{"name": "Read", "input_schema": map[string]any{"type": "object"}}, map[string]any{"name": "mcp__ctx__audit", "input_schema": map[string]any{"type": "object"}}},
				"messages": []any{map[string]any{"role": "user", "content": blocks}}}
		case "gemini":
			url = os.Getenv("GOOGLE_GEMINI_BASE_URL") + "/v1beta/models/gemini-fake:streamGenerateContent?alt=sse"
			header.Set("x-goog-api-key", os.Getenv("GEMINI_API_KEY"))
			header.Set("User-Agent", "GeminiCLI/9.9.9/gemini-fake (fake)")
			ctx := "<session_context>\n"
			if text != "" {
				ctx += "--- Context from: " + path + " ---\n" + text + "\n--- End of Context from: " + path + " ---\n"
			}
			ctx += "</session_context>"
			body = map[string]any{"systemInstruction": map[string]any{"parts": []any{map[string]any{"text": "You are a fake agent."}}},
				"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": ctx}, map[string]any{"text": "hi"}}}}}
		case "codex":
			// -c model_providers.NAME={...,base_url="URL",...}
			for _, a := range os.Args[1:] {
				if i := strings.Index(a, `base_url="`); i >= 0 {
					rest := a[i+len(`base_url="`):]
					url = rest[:strings.IndexByte(rest, '"')] + "/responses"
				}
			}
			header.Set("Authorization", "Bearer "+os.Getenv("OPENAI_API_KEY"))
			header.Set("User-Agent", "codex_exec/9.9.9 (fake)")
			var input []any
			if text != "" {
				input = append(input, map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text",
					"text": "# AGENTS.md instructions for " + cwd + "\n\n<INSTRUCTIONS>\n" + text + "\n</INSTRUCTIONS>"}}})
			}
			input = append(input, map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "hi"}}})
			body = map[string]any{"model": "gpt-fake", "stream": true, "instructions": "You are a fake agent.", "input": input}
		}
		b, _ := json.Marshal(body)
		req, err := http.NewRequest("POST", url, bytes.NewReader(b))
		if err != nil {
			fmt.Fprintln(os.Stderr, "fake agent:", err)
			os.Exit(9)
		}
		req.Header = header
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fake agent:", err)
			os.Exit(9)
		}
		reply, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(reply), "ok (ctx observe --mock)") {
			fmt.Println("fake agent: the model said ok")
		} else {
			fmt.Printf("fake agent: status %d\n", resp.StatusCode)
		}
		code, _ := strconv.Atoi(os.Getenv("FAKE_EXIT"))
		os.Exit(code)
	}
}
