package observe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/measure"
)

// q quotes s as a JSON string the way the agents write it: no HTML
// escaping, UTF-8 as it is.
func q(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// qASCII quotes s as a JSON string of ASCII only: every other character
// as a \u escape (a surrogate pair above the BMP), and <, > and & too.
func qASCII(s string) string {
	var b strings.Builder
	for _, r := range q(s) {
		switch {
		case r == '<' || r == '>' || r == '&':
			fmt.Fprintf(&b, `\u%04x`, r)
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// rawLen is the size of s in a body, quoted by quote, without the quotes.
func rawLen(quote func(string) string, s string) int { return len(quote(s)) - 2 }

// realTemp is a temporary directory by its real path (no symbolic link
// on the way), so that the paths an agent names are those ctx reads.
func realTemp(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func writeFile(t testing.TB, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkSum fails unless the segments add up to the body, each of them
// measured.
func checkSum(t testing.TB, segs []Segment, body []byte) {
	t.Helper()
	sum := 0
	for _, s := range segs {
		if s.Bytes < 0 || s.Chars < 0 || s.Tokens < 0 {
			t.Fatalf("segment %+v has a negative count", s)
		}
		sum += s.Bytes
	}
	if sum != len(body) {
		t.Fatalf("the segments add up to %d bytes, the body is %d: %s", sum, len(body), segList(segs))
	}
}

func segList(segs []Segment) string {
	var b strings.Builder
	for _, s := range segs {
		fmt.Fprintf(&b, "\n  %s %q %d bytes", s.Kind, s.Name, s.Bytes)
		if s.File != nil {
			fmt.Fprintf(&b, " (%s %s)", s.File.Path, s.File.Status)
		}
	}
	return b.String()
}

// kindNames lists the segments as "kind name", sorted.
func kindNames(segs []Segment) []string {
	var out []string
	for _, s := range segs {
		out = append(out, strings.TrimSpace(string(s.Kind)+" "+s.Name))
	}
	sort.Strings(out)
	return out
}

// segment returns the one segment of kind and name.
func segment(t testing.TB, segs []Segment, kind Kind, name string) Segment {
	t.Helper()
	var found []Segment
	for _, s := range segs {
		if s.Kind == kind && s.Name == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d segments %s %q, want 1: %s", len(found), kind, name, segList(segs))
	}
	return found[0]
}

// wantFile checks a file segment: its status, hashes and sizes against
// the file on disk (file, "" for one that cannot be read) and the text
// sent, and its bytes in the body.
func wantFile(t testing.TB, segs []Segment, kind Kind, path, status, file, sent string, raw int) {
	t.Helper()
	s := segment(t, segs, kind, path)
	f := s.File
	if f == nil {
		t.Fatalf("segment %s %q has no file", kind, path)
	}
	if f.Path != path || f.Status != status {
		t.Errorf("%s: path %q status %q, want %q", path, f.Path, f.Status, status)
	}
	if s.Bytes != raw {
		t.Errorf("%s: %d bytes in the body, want %d", path, s.Bytes, raw)
	}
	if f.SentBytes != len(sent) || f.SentHash != measure.Hash([]byte(sent)) {
		t.Errorf("%s: sent %d bytes hash %s, want %d bytes %q", path, f.SentBytes, f.SentHash, len(sent), sent)
	}
	if s.Chars != utf8.RuneCountInString(sent) {
		t.Errorf("%s: %d chars, want %d", path, s.Chars, utf8.RuneCountInString(sent))
	}
	if status == SentUnread {
		if f.FileHash != "" || f.FileBytes != 0 {
			t.Errorf("%s: unread, with a file hash %q and %d bytes", path, f.FileHash, f.FileBytes)
		}
	} else if f.FileBytes != len(file) || f.FileHash != measure.Hash([]byte(file)) {
		t.Errorf("%s: file %d bytes hash %s, want %d bytes", path, f.FileBytes, f.FileHash, len(file))
	}
	switch {
	case status == SentCut && (f.CutAt == nil || *f.CutAt != len(sent)):
		t.Errorf("%s: cut at %v, want %d", path, f.CutAt, len(sent))
	case status != SentCut && f.CutAt != nil:
		t.Errorf("%s: %s with a cut at %d", path, status, *f.CutAt)
	}
}

// wantText checks the bytes of a segment of text, and its measure.
func wantText(t testing.TB, segs []Segment, kind Kind, name string, raw int, text string) {
	t.Helper()
	s := segment(t, segs, kind, name)
	if s.Bytes != raw {
		t.Errorf("%s %q: %d bytes, want %d", kind, name, s.Bytes, raw)
	}
	if text != "" {
		chars := utf8.RuneCountInString(text)
		if s.Chars != chars || s.Tokens != (chars+3)/4 {
			t.Errorf("%s %q: %d chars %d tokens, want %d chars %d tokens", kind, name, s.Chars, s.Tokens, chars, (chars+3)/4)
		}
	}
}

func sameList(t testing.TB, got, want []string) {
	t.Helper()
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("segments:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// claudeTree is a project of Claude Code with its instruction files.
type claudeTree struct {
	dir, home                            string
	project, global, sub, memory, ghost  string // paths
	projectText, globalText, memoryText  string // on disk
	subDisk, subSent, ghostSent, context string
}

func newClaudeTree(t testing.TB, projectText string) claudeTree {
	root := realTemp(t)
	c := claudeTree{dir: filepath.Join(root, "project"), home: filepath.Join(root, "home")}
	c.project = filepath.Join(c.dir, "CLAUDE.md")
	c.global = filepath.Join(c.home, ".claude", "CLAUDE.md")
	c.sub = filepath.Join(c.dir, "sub", "CLAUDE.md")
	c.memory = filepath.Join(c.home, ".claude", "projects", "p", "memory", "MEMORY.md")
	c.ghost = filepath.Join(root, "missing", "CLAUDE.md")
	c.projectText = projectText
	c.globalText = "Be brief.\n"
	c.memoryText = "- The user likes table tests.\n"
	c.subDisk, c.subSent, c.ghostSent = "The old rules of sub.\n", "The new rules of sub.", "A file that is gone."
	writeFile(t, c.project, c.projectText)
	writeFile(t, c.global, c.globalText)
	writeFile(t, c.sub, c.subDisk)
	writeFile(t, c.memory, c.memoryText)
	c.context = "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# claudeMd\n" +
		"Codebase and user instructions are shown below. Be sure to adhere to these instructions.\n\n" +
		"Contents of " + c.global + " (user's private global instructions for all projects):\n\n" + c.globalText + "\n\n" +
		"Contents of " + c.project + " (project instructions, checked into the codebase):\n\n" + c.projectText + "\n\n" +
		"Contents of " + c.sub + " (project instructions, checked into the codebase):\n\n" + c.subSent + "\n\n" +
		"Contents of " + c.ghost + " (project instructions, checked into the codebase):\n\n" + c.ghostSent + "\n\n" +
		"Contents of " + c.memory + " (user's auto-memory, persists across conversations):\n\n" + c.memoryText +
		"</system-reminder>"
	return c
}

func (c claudeTree) files() *Files { return NewFiles(c.dir, "", c.home, nil) }

// TestAttributeAnthropic: a request of Claude Code, cut into the system
// prompt, each tool (the MCP tools by server), the files of its reminder,
// the skills of its system turn, the prompt and the conversation.
func TestAttributeAnthropic(t *testing.T) {
	c := newClaudeTree(t, "# Project rules\n\nUse tabs.\nRun `go test ./...` before committing.\n")
	sys1, sys2 := "You are Claude Code, Anthropic's official CLI for Claude.", "You are an interactive CLI tool that helps users with software engineering tasks."
	bash := `{"name":"Bash","description":"Runs a command","input_schema":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}`
	read := `{"name":"Read","description":"Reads a file","input_schema":{"type":"object","properties":{"file_path":{"type":"string"}}}}`
	gh1 := `{"name":"mcp__github__create_issue","description":"Creates an issue","input_schema":{"type":"object"}}`
	gh2 := `{"name":"mcp__github__list_issues","description":"Lists the issues","input_schema":{"type":"object"}}`
	lin := `{"name":"mcp__linear__search","description":"Searches","input_schema":{"type":"object"}}`
	todo := "<system-reminder>\nThis is a reminder that your todo list is currently empty.\n</system-reminder>"
	git := "<system-reminder>\n# gitStatus\nCurrent branch: main\n</system-reminder>"
	earlier := "look at the code"
	said := "Let me read it."
	envText := "Working directory: " + c.dir + "\nPlatform: linux\n\n"
	skills := "The following skills are available for use with the Skill tool:\n\n- pdf: Work with PDF files\n- xlsx: Work with spreadsheets"
	date := "\n\nToday's date is 2026-01-02."
	prompt := "now run the tests, please"
	body := []byte(`{"model":"claude-sonnet-4-5","max_tokens":32000,"stream":true,` +
		`"system":[{"type":"text","text":` + q(sys1) + `},{"type":"text","text":` + q(sys2) + `,"cache_control":{"type":"ephemeral"}}],` +
		`"tools":[` + bash + `,` + gh1 + `,` + read + `,` + lin + `,` + gh2 + `],` +
		`"messages":[` +
		`{"role":"user","content":[{"type":"text","text":` + q(c.context) + `},{"type":"text","text":` + q(todo) + `},{"type":"text","text":` + q(git) + `},{"type":"text","text":` + q(earlier) + `}]},` +
		`{"role":"assistant","content":[{"type":"text","text":` + q(said) + `},{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/x/y.go"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"package y"}]},` +
		`{"role":"system","content":` + q(envText+skills+date) + `},` +
		`{"role":"user","content":` + q(prompt) + `}],` +
		`"metadata":{"user_id":"u"}}`)
	if !json.Valid(body) {
		t.Fatal("the test's body is not JSON")
	}
	segs, model, stream, notes := Attribute(Claude, "/v1/messages?beta=true", body, c.files(), nil)
	checkSum(t, segs, body)
	if model != "claude-sonnet-4-5" || !stream || len(notes) != 0 {
		t.Errorf("model %q stream %v notes %q", model, stream, notes)
	}
	sameList(t, kindNames(segs), []string{
		"system_prompt", "tool Bash", "tool Read", "mcp_tools github", "mcp_tools linear",
		"instruction_file " + c.global, "instruction_file " + c.project, "instruction_file " + c.sub, "instruction_file " + c.ghost,
		"memory " + c.memory, "reminder", "environment", "skills", "conversation", "prompt", "framing",
	})
	wantText(t, segs, KindSystemPrompt, "", rawLen(q, sys1)+rawLen(q, sys2), sys1+sys2)
	wantText(t, segs, KindTool, "Bash", len(bash), bash)
	wantText(t, segs, KindTool, "Read", len(read), read)
	wantText(t, segs, KindMCPTools, "github", len(gh1)+len(gh2), gh1+gh2)
	wantText(t, segs, KindMCPTools, "linear", len(lin), lin)
	wantText(t, segs, KindSkills, "", rawLen(q, skills), skills)
	wantText(t, segs, KindPrompt, "", rawLen(q, prompt), prompt)
	wantText(t, segs, KindEnvironment, "", rawLen(q, envText)+rawLen(q, date)+rawLen(q, git), "")

	wantFile(t, segs, KindInstruction, c.global, SentWhole, c.globalText, c.globalText, rawLen(q, c.globalText))
	wantFile(t, segs, KindInstruction, c.project, SentWhole, c.projectText, c.projectText, rawLen(q, c.projectText))
	wantFile(t, segs, KindInstruction, c.sub, SentChanged, c.subDisk, c.subSent, rawLen(q, c.subSent))
	wantFile(t, segs, KindInstruction, c.ghost, SentUnread, "", c.ghostSent, rawLen(q, c.ghostSent))
	// the memory file's final line break is the reminder's: whole, as
	// the file is up to white space at its end
	mem := strings.TrimRight(c.memoryText, "\n")
	wantFile(t, segs, KindMemory, c.memory, SentWhole, c.memoryText, mem, rawLen(q, mem))

	// the reminders: what the files leave of the first, and the second
	files := rawLen(q, c.globalText) + rawLen(q, c.projectText) + rawLen(q, c.subSent) + rawLen(q, c.ghostSent) + rawLen(q, mem)
	wantText(t, segs, KindReminder, "", rawLen(q, c.context)-files+rawLen(q, todo), "")
	conv := rawLen(q, earlier) + rawLen(q, said) + len(`toolu_1`) + len(`Read`) + len(`/x/y.go`) + len(`tool_use`) +
		len(`tool_result`) + len(`toolu_1`) + len(`package y`)
	wantText(t, segs, KindConversation, "", conv, "")
}

// TestAttributeAnthropicShapes: the system prompt as a string, a prompt
// of blocks, count_tokens, no tools, and a request with no user turn.
func TestAttributeAnthropicShapes(t *testing.T) {
	for _, tc := range []struct {
		name, path, body string
		want             []string
		model            string
		stream           bool
	}{
		{"system as a string", "/v1/messages", `{"model":"claude-haiku","system":"You are a helper.","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`,
			[]string{"system_prompt", "prompt", "framing"}, "claude-haiku", false},
		{"count_tokens", "/v1/messages/count_tokens", `{"model":"claude-haiku","messages":[{"role":"user","content":"count me"}],"tools":[{"name":"T","input_schema":{}}]}`,
			[]string{"tool T", "prompt", "framing"}, "claude-haiku", false},
		{"a server tool without a name", "/v1/messages", `{"messages":[{"role":"user","content":"x"}],"tools":[{"type":"web_search_20250305"}]}`,
			[]string{"tool web_search_20250305", "prompt", "framing"}, "", false},
		{"stream false", "/v1/messages", `{"stream":false,"messages":[{"role":"assistant","content":"a"},{"role":"user","content":"b"},{"role":"assistant","content":"c"}]}`,
			[]string{"conversation", "prompt", "framing"}, "", false},
		{"an image block", "/v1/messages", `{"stream":true,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","data":"AAAA"}},{"type":"text","text":"what is it"}]}]}`,
			[]string{"conversation", "prompt", "framing"}, "", true},
		{"no messages but a system", "/v1/messages", `{"system":"s","messages":[]}`,
			[]string{"system_prompt", "framing"}, "", false},
		{"an MCP tool name without a tool", "/v1/messages", `{"messages":[],"tools":[{"name":"mcp__server"},{"name":"mcp____x"}]}`,
			[]string{"tool mcp__server", "tool mcp____x", "framing"}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			segs, model, stream, notes := Attribute(Claude, tc.path, body, nil, nil)
			checkSum(t, segs, body)
			sameList(t, kindNames(segs), tc.want)
			if model != tc.model || stream != tc.stream || len(notes) != 0 {
				t.Errorf("model %q stream %v notes %q, want %q %v", model, stream, notes, tc.model, tc.stream)
			}
		})
	}
}

// codexTree is a project of Codex: the user's AGENTS.md, the project's,
// and one in the folder Codex starts in, which Codex cuts.
type codexTree struct {
	dir, sub, home           string
	global, project, subFile string
	globalText, projectText  string
	subText                  string
	cutAt                    int
	block                    string
}

func newCodexTree(t testing.TB, subText string, cutAt int) codexTree {
	root := realTemp(t)
	c := codexTree{dir: filepath.Join(root, "project"), home: filepath.Join(root, "home")}
	c.sub = filepath.Join(c.dir, "sub")
	c.global = filepath.Join(c.home, ".codex", "AGENTS.md")
	c.project = filepath.Join(c.dir, "AGENTS.md")
	c.subFile = filepath.Join(c.sub, "AGENTS.md")
	c.globalText = "Global rule: answer in English.\n"
	c.projectText = "# Repo\n\nBuild with make.\n"
	c.subText, c.cutAt = subText, cutAt
	writeFile(t, c.global, c.globalText)
	writeFile(t, c.project, c.projectText)
	writeFile(t, c.subFile, c.subText)
	c.block = "# AGENTS.md instructions for " + c.sub + "\n\n<INSTRUCTIONS>\n" + c.globalText + "\n\n--- project-doc ---\n\n" +
		c.projectText + "\n\n" + c.subText[:cutAt] + "\n</INSTRUCTIONS>"
	return c
}

// TestAttributeResponses: a request of Codex, with its developer
// messages, its AGENTS.md block of three files (the last one cut) and its
// environment.
func TestAttributeResponses(t *testing.T) {
	sub := "Sub rules, line one.\nSub rules, line two.\nSub rules, line three.\n"
	c := newCodexTree(t, sub, 30)
	instructions := "You are Codex, based on GPT-5. You are running as a coding agent."
	perms := "<permissions instructions>\nFilesystem sandboxing: workspace-write.\n</permissions instructions>"
	extra := "Extra developer note."
	env := "<environment_context>\n  <cwd>" + c.sub + "</cwd>\n  <shell>bash</shell>\n</environment_context>"
	done := "Done before."
	prompt := "fix the failing test"
	shell := `{"type":"function","name":"shell","description":"Runs a shell command","strict":false,"parameters":{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}}}}}`
	docs := `{"type":"function","name":"mcp__docs__search","parameters":{"type":"object"}}`
	web := `{"type":"web_search"}`
	msg := func(role, text string) string {
		kind := "input_text"
		if role == "assistant" {
			kind = "output_text"
		}
		return `{"type":"message","role":"` + role + `","content":[{"type":"` + kind + `","text":` + q(text) + `}]}`
	}
	body := []byte(`{"model":"gpt-5-codex","instructions":` + q(instructions) + `,"input":[` +
		msg("developer", perms) + `,` + msg("developer", extra) + `,` + msg("user", c.block) + `,` + msg("user", env) + `,` +
		msg("assistant", done) + `,{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"},` +
		`{"type":"function_call_output","call_id":"c1","output":"a.txt"},` + msg("user", prompt) + `],` +
		`"tools":[` + shell + `,` + docs + `,` + web + `],"tool_choice":"auto","parallel_tool_calls":false,` +
		`"reasoning":{"effort":"medium","summary":"auto"},"store":false,"stream":true,"include":["reasoning.encrypted_content"],"prompt_cache_key":"k"}`)
	if !json.Valid(body) {
		t.Fatal("the test's body is not JSON")
	}
	files := NewFiles(c.sub, c.dir, c.home, nil)
	segs, model, stream, notes := Attribute(Codex, "/v1/responses", body, files, nil)
	checkSum(t, segs, body)
	if model != "gpt-5-codex" || !stream || len(notes) != 0 {
		t.Errorf("model %q stream %v notes %q", model, stream, notes)
	}
	sameList(t, kindNames(segs), []string{
		"system_prompt", "tool shell", "tool web_search", "mcp_tools docs",
		"instruction_file " + c.global, "instruction_file " + c.project, "instruction_file " + c.subFile,
		"environment", "reminder", "conversation", "prompt", "framing",
	})
	wantText(t, segs, KindSystemPrompt, "", rawLen(q, instructions), instructions)
	wantText(t, segs, KindTool, "shell", len(shell), shell)
	wantText(t, segs, KindMCPTools, "docs", len(docs), docs)
	wantText(t, segs, KindTool, "web_search", len(web), web)
	wantText(t, segs, KindEnvironment, "", rawLen(q, perms)+rawLen(q, env), perms+env)
	wantText(t, segs, KindPrompt, "", rawLen(q, prompt), prompt)
	wantFile(t, segs, KindInstruction, c.global, SentWhole, c.globalText, c.globalText, rawLen(q, c.globalText))
	wantFile(t, segs, KindInstruction, c.project, SentWhole, c.projectText, c.projectText, rawLen(q, c.projectText))
	cut := c.subText[:c.cutAt]
	wantFile(t, segs, KindInstruction, c.subFile, SentCut, c.subText, cut, rawLen(q, cut))
	files3 := rawLen(q, c.globalText) + rawLen(q, c.projectText) + rawLen(q, cut)
	wantText(t, segs, KindReminder, "", rawLen(q, extra)+rawLen(q, c.block)-files3, "")
}

// TestAttributeCodexSameText: two files of one text, the second cut:
// each is attributed once, in the order of the block.
func TestAttributeCodexSameText(t *testing.T) {
	line := "A line of rules, long enough to fill the file quickly with text.\n"
	root := realTemp(t)
	dir, sub := filepath.Join(root, "p"), filepath.Join(root, "p", "sub")
	a, b := filepath.Join(dir, "AGENTS.md"), filepath.Join(sub, "AGENTS.md")
	writeFile(t, a, strings.Repeat(line, 5))
	writeFile(t, b, strings.Repeat(line, 5))
	cut := strings.Repeat(line, 5)[:100]
	block := "# AGENTS.md instructions for " + sub + "\n\n<INSTRUCTIONS>\n" + strings.Repeat(line, 5) + "\n\n" + cut + "\n</INSTRUCTIONS>"
	body := []byte(`{"model":"gpt-5","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":` + q(block) + `}]}]}`)
	for _, given := range [][]string{{a, b}, {b, a}, nil} {
		segs, _, _, _ := Attribute(Codex, "/v1/responses", body, NewFiles(sub, dir, "", given), nil)
		checkSum(t, segs, body)
		var got []string
		for _, s := range segs {
			if s.File != nil {
				got = append(got, s.File.Path+" "+sentText(s.File))
			}
		}
		// the first file of a block that two files explain is either; the
		// two are each attributed, the cut one last
		if len(got) != 2 || got[0] == got[1] || !strings.HasSuffix(got[1], " cut at 100") || !strings.HasSuffix(got[0], " whole") ||
			strings.TrimSuffix(got[0], " whole") == strings.TrimSuffix(got[1], " cut at 100") {
			t.Errorf("given %q: files %q, want both files, the second cut at 100", given, got)
		}
	}
}

// TestAttributeCodexUnexplained: a block that no file explains is an
// instruction segment of its own, with no file.
func TestAttributeCodexUnexplained(t *testing.T) {
	block := "# AGENTS.md instructions for /nowhere\n\n<INSTRUCTIONS>\nRules of a file ctx does not know.\n</INSTRUCTIONS>"
	body := []byte(`{"input":[{"role":"user","content":[{"type":"input_text","text":` + q(block) + `}]}]}`)
	segs, _, _, _ := Attribute(Codex, "/v1/responses", body, NewFiles(realTemp(t), "", "", nil), nil)
	checkSum(t, segs, body)
	s := segment(t, segs, KindInstruction, "AGENTS.md instructions for /nowhere")
	if s.File != nil || s.Bytes != len("Rules of a file ctx does not know.") {
		t.Errorf("segment %+v", s)
	}
}

func TestAttributeResponsesShapes(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"input as a string", `{"model":"m","input":"just a prompt"}`, []string{"prompt", "framing"}},
		{"instructions alone", `{"instructions":"be good"}`, []string{"system_prompt", "framing"}},
		{"a developer message of a string", `{"input":[{"role":"developer","content":"dev"},{"role":"user","content":"u"}]}`,
			[]string{"system_prompt", "prompt", "framing"}},
		{"skills", `{"input":[{"role":"developer","content":[{"type":"input_text","text":"<skills_instructions>\n- a\n</skills_instructions>"}]}]}`,
			[]string{"skills", "framing"}},
		{"user instructions", `{"input":[{"role":"user","content":[{"type":"input_text","text":"<user_instructions>\nx\n</user_instructions>"}]},{"role":"user","content":[{"type":"input_text","text":"go"}]}]}`,
			[]string{"reminder", "prompt", "framing"}},
		{"a reasoning item", `{"input":[{"type":"reasoning","summary":[{"type":"summary_text","text":"thinking"}]}]}`,
			[]string{"conversation", "framing"}},
		{"a block that is not text", `{"input":[{"role":"user","content":[{"type":"input_image","image_url":"data:x"}]}]}`,
			[]string{"conversation", "framing"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			segs, _, _, _ := Attribute(Codex, "/v1/responses", body, nil, nil)
			checkSum(t, segs, body)
			sameList(t, kindNames(segs), tc.want)
		})
	}
}

// TestAttributeGemini: a request of Gemini CLI, its files in the first
// user content between its context markers.
func TestAttributeGemini(t *testing.T) {
	root := realTemp(t)
	dir, home := filepath.Join(root, "project"), filepath.Join(root, "home")
	global, project := filepath.Join(home, ".gemini", "GEMINI.md"), filepath.Join(dir, "GEMINI.md")
	globalText, projectText := "Global Gemini rules.\n", "Gemini rules: be kind.\n\nAnd careful.\n"
	writeFile(t, global, globalText)
	writeFile(t, project, projectText)
	session := "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nMy operating system is: linux\n</session_context>"
	memory := "--- Context from: " + global + " ---\n" + strings.TrimSpace(globalText) + "\n--- End of Context from: " + global + " ---\n\n" +
		"--- Context from: " + project + " ---\n" + strings.TrimSpace(projectText) + "\n--- End of Context from: " + project + " ---"
	system := "You are Gemini CLI, an interactive CLI agent."
	readFile := `{"name":"read_file","description":"Reads a file","parametersJsonSchema":{"type":"object"}}`
	search := `{}`
	prompt := "explain this code"
	body := []byte(`{"contents":[` +
		`{"role":"user","parts":[{"text":` + q(session) + `},{"text":` + q(memory) + `}]},` +
		`{"role":"model","parts":[{"text":"Got it."}]},` +
		`{"role":"user","parts":[{"text":"earlier question"}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"read_file","args":{"path":"a.go"}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"read_file","response":{"output":"package a"}}}]},` +
		`{"role":"user","parts":[{"text":` + q(prompt) + `}]}],` +
		`"systemInstruction":{"role":"user","parts":[{"text":` + q(system) + `}]},` +
		`"tools":[{"functionDeclarations":[` + readFile + `]},{"googleSearch":` + search + `}],` +
		`"generationConfig":{"temperature":0,"thinkingConfig":{"includeThoughts":true}}}`)
	if !json.Valid(body) {
		t.Fatal("the test's body is not JSON")
	}
	files := NewFiles(dir, "", home, nil)
	segs, model, stream, _ := Attribute(Gemini, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", body, files, nil)
	checkSum(t, segs, body)
	if model != "gemini-2.5-flash" || !stream {
		t.Errorf("model %q stream %v", model, stream)
	}
	sameList(t, kindNames(segs), []string{
		"system_prompt", "tool read_file", "tool googleSearch", "environment",
		"instruction_file " + global, "instruction_file " + project, "conversation", "prompt", "framing",
	})
	wantText(t, segs, KindSystemPrompt, "", rawLen(q, system), system)
	wantText(t, segs, KindTool, "read_file", len(readFile), readFile)
	wantText(t, segs, KindTool, "googleSearch", len(search), search)
	wantText(t, segs, KindEnvironment, "", rawLen(q, session), session)
	wantText(t, segs, KindPrompt, "", rawLen(q, prompt), prompt)
	g, p := strings.TrimSpace(globalText), strings.TrimSpace(projectText)
	wantFile(t, segs, KindInstruction, global, SentWhole, globalText, g, rawLen(q, g))
	wantFile(t, segs, KindInstruction, project, SentWhole, projectText, p, rawLen(q, p))

	// not streamed, and countTokens with its generateContentRequest
	_, model, stream, _ = Attribute(Gemini, "/v1beta/models/gemini-2.5-pro:generateContent", body, files, nil)
	if model != "gemini-2.5-pro" || stream {
		t.Errorf("generateContent: model %q stream %v", model, stream)
	}
	wrapped := []byte(`{"generateContentRequest":{"model":"models/gemini-2.5-pro","contents":[{"role":"user","parts":[{"text":"count"}]}]}}`)
	segs, model, stream, _ = Attribute(Gemini, "/v1beta/models/gemini-2.5-pro:countTokens", wrapped, files, nil)
	checkSum(t, segs, wrapped)
	sameList(t, kindNames(segs), []string{"prompt", "framing"})
	if model != "gemini-2.5-pro" || stream {
		t.Errorf("countTokens: model %q stream %v", model, stream)
	}
}

// TestAttributeChat: Chat Completions, with a file found by its bytes
// where no header names it.
func TestAttributeChat(t *testing.T) {
	dir := realTemp(t)
	agents := filepath.Join(dir, "AGENTS.md")
	agentsText := "# Rules\n\nAlways write tests first.\n"
	writeFile(t, agents, agentsText)
	system := "You are a helpful assistant.\n\n"
	weather := `{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}`
	route := `{"type":"function","function":{"name":"mcp__maps__route","parameters":{}}}`
	prompt := "and tomorrow?"
	body := []byte(`{"model":"gpt-4o","stream":false,"messages":[` +
		`{"role":"system","content":` + q(system+agentsText) + `},` +
		`{"role":"user","content":"weather in Paris?"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"t1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},` +
		`{"role":"tool","tool_call_id":"t1","content":"sunny"},` +
		`{"role":"user","content":[{"type":"text","text":` + q(prompt) + `},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}],` +
		`"tools":[` + weather + `,` + route + `]}`)
	if !json.Valid(body) {
		t.Fatal("the test's body is not JSON")
	}
	segs, model, stream, _ := Attribute("", "/v1/chat/completions", body, NewFiles(dir, "", "", nil), nil)
	checkSum(t, segs, body)
	if model != "gpt-4o" || stream {
		t.Errorf("model %q stream %v", model, stream)
	}
	sameList(t, kindNames(segs), []string{"system_prompt", "instruction_file " + agents, "tool get_weather", "mcp_tools maps",
		"conversation", "prompt", "framing"})
	wantText(t, segs, KindSystemPrompt, "", rawLen(q, system), system)
	wantFile(t, segs, KindInstruction, agents, SentWhole, agentsText, agentsText, rawLen(q, agentsText))
	wantText(t, segs, KindPrompt, "", rawLen(q, prompt), prompt)
	wantText(t, segs, KindTool, "get_weather", len(weather), weather)
	wantText(t, segs, KindMCPTools, "maps", len(route), route)
}

// TestAttributeNotJSON: a body that is not JSON is one segment, with a
// note.
func TestAttributeNotJSON(t *testing.T) {
	for _, body := range []string{"hello, not JSON", "", "{\"a\":", strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)} {
		segs, model, stream, notes := Attribute(Claude, "/v1/messages", []byte(body), nil, nil)
		checkSum(t, segs, []byte(body))
		if len(segs) != 1 || segs[0].Kind != KindFraming || model != "" || stream {
			t.Errorf("%.20q: segments %s, model %q stream %v", body, segList(segs), model, stream)
		}
		if len(notes) != 1 || !strings.Contains(notes[0], "not JSON") || !strings.Contains(notes[0], "one segment") {
			t.Errorf("%.20q: notes %q", body, notes)
		}
		if segs[0].Chars != utf8.RuneCountInString(body) {
			t.Errorf("%.20q: %d chars", body, segs[0].Chars)
		}
	}
}

// TestAttributeEscapes: a file of non-ASCII text, quotes, backslashes and
// tabs, in a body that escapes them (every non-ASCII character as \u, an
// emoji as a surrogate pair, < > & as \u003c and the like), or sends UTF-8
// as it is: the file is whole, and its segment is its escaped bytes.
func TestAttributeEscapes(t *testing.T) {
	text := "Règles : « guillemets » et café.\nEmoji 😀 ok.\n\tTab, quote \" and backslash \\ and </tags> & more.\n日本語のテキスト\n\u2028line separator\n"
	for _, tc := range []struct {
		name  string
		quote func(string) string
	}{
		{"UTF-8 as it is", q},
		{"ASCII with escapes", qASCII},
		{"encoding/json's HTML escaping", func(s string) string { b, _ := json.Marshal(s); return string(b) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClaudeTree(t, text)
			prompt := "ça va ? 😀"
			body := []byte(`{"model":"claude","messages":[{"role":"user","content":[{"type":"text","text":` + tc.quote(c.context) +
				`},{"type":"text","text":` + tc.quote(prompt) + `}]}]}`)
			if !json.Valid(body) {
				t.Fatal("the test's body is not JSON")
			}
			segs, _, _, _ := Attribute(Claude, "/v1/messages", body, c.files(), nil)
			checkSum(t, segs, body)
			wantFile(t, segs, KindInstruction, c.project, SentWhole, text, text, rawLen(tc.quote, text))
			wantFile(t, segs, KindInstruction, c.global, SentWhole, c.globalText, c.globalText, rawLen(tc.quote, c.globalText))
			wantText(t, segs, KindPrompt, "", rawLen(tc.quote, prompt), prompt)
		})
	}
}

// TestAttributeHeaderInAFile: a file whose text holds another agent's
// header is the file's text, not another file: whether the other header's
// block ends in the file or past it. A request of Codex is not searched
// for the headers of Claude Code and Gemini CLI at all: the file is found
// by its bytes.
func TestAttributeHeaderInAFile(t *testing.T) {
	root := realTemp(t)
	claude, other := filepath.Join(root, "CLAUDE.md"), filepath.Join(root, "OTHER.md")
	writeFile(t, other, "other\n")
	inside := "Rules that quote Gemini CLI:\n--- Context from: " + other + " ---\nother\n--- End of Context from: " + other + " ---\nend of rules\n"
	across := "Rules that open a block of Gemini CLI:\n--- Context from: " + other + " ---\nother\n"
	for _, tc := range []struct{ name, text, after string }{
		{"the block in the file", inside, ""},
		{"the block past the file", across, "\n--- End of Context from: " + other + " ---"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, claude, tc.text)
			reminder := "<system-reminder>\nContents of " + claude + " (project instructions, checked into the codebase):\n\n" + tc.text +
				"</system-reminder>" + tc.after
			body := []byte(`{"messages":[{"role":"user","content":[{"type":"text","text":` + q(reminder) + `}]}]}`)
			for _, agent := range []Agent{Claude, "", Codex} {
				segs, _, _, _ := Attribute(agent, "/v1/messages", body, NewFiles(root, root, "", nil), nil)
				checkSum(t, segs, body)
				sent := strings.TrimRight(tc.text, "\n")
				if agent == Codex { // by its bytes: its final line break with it
					sent = tc.text
				}
				wantFile(t, segs, KindInstruction, claude, SentWhole, tc.text, sent, rawLen(q, sent))
				for _, s := range segs {
					if s.File != nil && s.File.Path == other {
						t.Errorf("agent %q: the quoted header is a file of its own: %s", agent, segList(segs))
					}
				}
			}
		})
	}
}

func TestAPIOf(t *testing.T) {
	for path, want := range map[string]string{
		"/v1/messages":                                   APIMessages,
		"/v1/messages?beta=true":                         APIMessages,
		"/v1/messages/count_tokens":                      APICountTokens,
		"/v1/messages/count_tokens?beta=true":            APICountTokens,
		"/v1/responses":                                  APIResponses,
		"/backend-api/codex/responses":                   APIResponses,
		"/v1/chat/completions":                           APIChatCompletions,
		"/v1beta/models/m:generateContent":               APIGenerateContent,
		"/v1beta/models/m:streamGenerateContent?alt=sse": APIGenerateContent,
		"/v1beta/models/m:countTokens":                   APICountTokens,
		"/v1/models":                                     APIOther,
		"/":                                              APIOther,
		"/other?x=/v1/messages":                          APIOther,
	} {
		if got := apiOf(path); got != want {
			t.Errorf("apiOf(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestClient(t *testing.T) {
	for ua, want := range map[string]string{
		"claude-cli/2.1.328 (external, cli)":                 "claude-cli 2.1.328",
		"codex_exec/0.169.0 (Ubuntu 24.4.0; x86_64) xterm":   "codex_exec 0.169.0",
		"GeminiCLI-tui/0.61.0/gemini-2.5-flash (linux; x64)": "GeminiCLI-tui 0.61.0",
		"curl/8.5.0": "curl 8.5.0",
		"Mozilla":    "",
		"":           "",
		"x/notaver":  "",
		"/1.0":       "",
		"9lives/1.0": "",
	} {
		if got := client(ua); got != want {
			t.Errorf("client(%q) = %q, want %q", ua, got, want)
		}
	}
}

func TestMCPServer(t *testing.T) {
	for name, want := range map[string]string{
		"mcp__github__create_issue": "github",
		"mcp__a__b__c":              "a",
		"mcp__server":               "",
		"mcp____tool":               "",
		"Bash":                      "",
		"mcp_x_y":                   "",
	} {
		got, ok := mcpServer(name)
		if ok != (want != "") || ok && got != want {
			t.Errorf("mcpServer(%q) = %q %v, want %q", name, got, ok, want)
		}
	}
}

func TestOverlay(t *testing.T) {
	files := []span{{start: 10, end: 20, kind: KindInstruction}, {start: 30, end: 40, kind: KindInstruction}}
	got := overlay(files, []span{{start: 0, end: 50, kind: KindSkills}})
	var desc []string
	for _, s := range got {
		desc = append(desc, fmt.Sprintf("%d-%d %s", s.start, s.end, s.kind))
	}
	want := "0-10 skills,10-20 instruction_file,20-30 skills,30-40 instruction_file,40-50 skills"
	if strings.Join(desc, ",") != want {
		t.Errorf("overlay = %s, want %s", strings.Join(desc, ","), want)
	}
	if got := overlay(nil, []span{{start: 1, end: 2}}); len(got) != 1 {
		t.Errorf("overlay without files = %v", got)
	}
}

// attributePaths are the paths FuzzAttribute sends its bodies to.
var attributePaths = []string{"/v1/messages", "/v1/responses", "/v1beta/models/m:generateContent", "/v1/chat/completions", "/other",
	"/v1/messages/count_tokens", "/v1beta/models/m:streamGenerateContent?alt=sse", "/v1beta/models/m:countTokens"}

func FuzzAttribute(f *testing.F) {
	root := realTemp(f)
	dir := filepath.Join(root, "p")
	for p, text := range map[string]string{
		"CLAUDE.md": "Claude rules, long enough.\n", "AGENTS.md": "Agents rules, long enough.\n", "GEMINI.md": "Gemini rules.\n",
		"sub/AGENTS.md": "Agents rules, long enough.\nAnd more.\n", "blank/AGENTS.md": "  \n",
	} {
		writeFile(f, filepath.Join(dir, p), text)
	}
	files := NewFiles(dir, root, "", nil)
	claude := "<system-reminder>\nContents of " + filepath.Join(dir, "CLAUDE.md") + " (project instructions, checked into the codebase):\n\nClaude rules, long enough.\n</system-reminder>"
	codex := "# AGENTS.md instructions for " + dir + "\n\n<INSTRUCTIONS>\nAgents rules, long enough.\n\n--- project-doc ---\n\nAgents rules, long enough.\nAnd\n</INSTRUCTIONS>"
	gemini := "--- Context from: " + filepath.Join(dir, "GEMINI.md") + " ---\nGemini rules.\n--- End of Context from: " + filepath.Join(dir, "GEMINI.md") + " ---"
	seeds := []string{
		`{"model":"m","stream":true,"system":"s","tools":[{"name":"mcp__a__b"},{"name":"T"}],"messages":[{"role":"user","content":[{"type":"text","text":` + q(claude) + `},{"type":"text","text":"hi"}]},{"role":"system","content":"The following skills are available for use with the Skill tool:\n- x\n\nToday's date is 1."}]}`,
		`{"model":"m","instructions":"i","input":[{"role":"developer","content":"d"},{"type":"message","role":"user","content":[{"type":"input_text","text":` + q(codex) + `}]},{"role":"user","content":"go"}],"tools":[{"type":"web_search"}]}`,
		`{"contents":[{"role":"user","parts":[{"text":` + q(gemini) + `},{"text":"<session_context>x"}]},{"parts":[{"functionResponse":{}}]}],"systemInstruction":{"parts":[{"text":"s"}]},"tools":[{"functionDeclarations":[{"name":"f"}]},{"googleSearch":{}}]}`,
		`{"generateContentRequest":{"contents":[]}}`,
		`{"model":"m","messages":[{"role":"system","content":"Agents rules, long enough.\n"},{"role":"user","content":[{"text":"x"},{"image":1}],"tool_calls":[{"a":"b"}]}],"tools":[{"function":{"name":"mcp__s__t"}}]}`,
		qASCII(claude), `"\ud83d\ude00 \u00e9 \\ \" \/"`, "\"a\xffb\"", `[1,2,{"a":null}]`, `null`, `not json`, ``, `{"messages":5,"system":[1,{"text":2}]}`,
		`{"input":"x","tools":{"a":1}}`, `{"contents":{"a":1},"tools":[[1],{"functionDeclarations":[]}]}`,
	}
	for i, s := range seeds {
		f.Add([]byte(s), uint8(i))
	}
	agents := []Agent{Claude, Codex, Gemini, ""}
	est := measure.Default()
	f.Fuzz(func(t *testing.T, body []byte, which uint8) {
		path := attributePaths[int(which)%len(attributePaths)]
		agent := agents[int(which/16)%len(agents)]
		segs, _, _, _ := Attribute(agent, path, body, files, est)
		checkSum(t, segs, body)
		for _, s := range segs {
			if s.File == nil {
				continue
			}
			switch s.File.Status {
			case SentWhole, SentChanged, SentUnread:
			case SentCut:
				if s.File.CutAt == nil {
					t.Fatalf("a cut file with no cut: %+v", s.File)
				}
			default:
				t.Fatalf("status %q", s.File.Status)
			}
			if s.Kind != KindInstruction && s.Kind != KindMemory {
				t.Fatalf("a file in a segment of kind %s", s.Kind)
			}
		}
	})
}

// FuzzFind: the files found in any text are sorted, disjoint and in the
// text, as Attribute needs them to be, whichever headers the text holds
// and however they nest.
func FuzzFind(f *testing.F) {
	root := realTemp(f)
	dir := filepath.Join(root, "p")
	paths := map[string]string{
		"CLAUDE.md": "Claude rules, long enough.\n", "AGENTS.md": "Agents rules, long enough.\n", "GEMINI.md": "Gemini rules @./docs/x.md\n",
		"sub/AGENTS.md": "Agents rules, long enough.\n", "docs/x.md": "Imported text.\n",
	}
	for p, text := range paths {
		writeFile(f, filepath.Join(dir, p), text)
	}
	files := NewFiles(filepath.Join(dir, "sub"), dir, "", []string{filepath.Join(dir, "GEMINI.md"), filepath.Join(dir, "docs", "x.md")})
	claude := func(p, text string) string {
		return "Contents of " + filepath.Join(dir, p) + " (project instructions, checked into the codebase):\n\n" + text
	}
	gemini := func(p, text string) string {
		return "--- Context from: " + filepath.Join(dir, p) + " ---\n" + text + "\n--- End of Context from: " + filepath.Join(dir, p) + " ---"
	}
	codex := func(text string) string {
		return "# AGENTS.md instructions for " + dir + "\n\n<INSTRUCTIONS>\n" + text + "\n</INSTRUCTIONS>"
	}
	for _, s := range []string{
		"<system-reminder>\n" + claude("CLAUDE.md", "Claude rules, long enough.\n") + "\n</system-reminder>",
		"<system-reminder>\n" + claude("CLAUDE.md", gemini("GEMINI.md", "x")) + "\n</system-reminder>",
		claude("CLAUDE.md", "a --- Context from: "+filepath.Join(dir, "GEMINI.md")+" ---\n") + "\n</system-reminder>" + "\n--- End of Context from: " + filepath.Join(dir, "GEMINI.md") + " ---",
		gemini("GEMINI.md", "Gemini rules <!-- Imported from: ./docs/x.md -->\nImported text.\n<!-- End of import from: ./docs/x.md -->"),
		gemini("GEMINI.md", claude("CLAUDE.md", "Claude rules, long enough.")),
		codex("Agents rules, long enough.\n\n--- project-doc ---\n\nAgents rules, long enough.\n\nAgents rules, long"),
		codex(claude("AGENTS.md", "Agents rules, long enough.")),
		"Agents rules, long enough. Agents rules, long enough.\n" + gemini("AGENTS.md", "Agents rules, long enough."),
		"", "Contents of / (x):\n\n", "--- Context from: a ---\n\n--- End of Context from: a ---",
	} {
		for agent := range uint8(4) {
			f.Add(s, agent)
		}
	}
	agents := []Agent{Claude, Codex, Gemini, ""}
	f.Fuzz(func(t *testing.T, text string, which uint8) {
		spans := files.find(agents[int(which)%len(agents)], text, &work{})
		at := 0
		for i, s := range spans {
			if s.start < at || s.end < s.start || s.end > len(text) {
				t.Fatalf("span %d [%d,%d) of %s %q after %d, in a text of %d bytes: %v", i, s.start, s.end, s.kind, s.name, at, len(text), spans)
			}
			at = s.end
			if s.file != nil && s.kind != KindInstruction && s.kind != KindMemory {
				t.Fatalf("a file in a span of kind %s", s.kind)
			}
		}
	})
}
