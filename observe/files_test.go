package observe

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// hostile texts: each of n markers that a search of a header's block
// could read again and again.
var hostile = map[string]struct {
	agent Agent
	text  func(dir string, n int) string
}{
	// Gemini CLI's import markers nested n deep in one block
	"nested imports": {Gemini, func(dir string, n int) string {
		p := filepath.Join(dir, "GEMINI.md")
		return "--- Context from: " + p + " ---\n" + strings.Repeat("<!-- Imported from: x.md -->\n", n) + "text" +
			strings.Repeat("\n<!-- End of import from: x.md -->", n) + "\n--- End of Context from: " + p + " ---"
	}},
	// n blocks of Gemini CLI that no end closes
	"unclosed blocks": {Gemini, func(dir string, n int) string {
		return strings.Repeat("--- Context from: "+filepath.Join(dir, "GEMINI.md")+" ---\nx\n", n)
	}},
	// n blocks of Codex that no end closes
	"unclosed Codex blocks": {Codex, func(dir string, n int) string {
		return strings.Repeat("# AGENTS.md instructions for "+dir+"\n\n<INSTRUCTIONS>\nx\n", n)
	}},
	// n headers of Claude Code that name a large file, one reminder
	"headers of a large file": {Claude, func(dir string, n int) string {
		return "<system-reminder>\n" + strings.Repeat("Contents of "+filepath.Join(dir, "BIG.md")+" (project instructions, checked into the codebase):\n\nx\n\n", n) +
			"</system-reminder>"
	}},
	// n copies of a file found by its bytes
	"copies of a file": {"", func(dir string, n int) string {
		return strings.Repeat("Agents rules, long enough.\n", n)
	}},
	// every agent's markers, for a program ctx does not know
	"all of them": {"", func(dir string, n int) string {
		return strings.Repeat("--- Context from: a ---\n<!-- Imported from: b -->\n# AGENTS.md instructions for d\n\n<INSTRUCTIONS>\nContents of /c (x):\n\n", n)
	}},
}

// TestFindGrowsLinearly: the steps of the search for files (the bytes its
// searches and comparisons read) grow as the text on hostile input: four
// times the markers, at most about four times the steps. Before each
// marker was found once and the by-bytes search held its matches in
// sorted runs, nested imports of Gemini CLI took time in the square of
// their number.
func TestFindGrowsLinearly(t *testing.T) {
	root := realTemp(t)
	dir := filepath.Join(root, "p")
	writeFile(t, filepath.Join(dir, "GEMINI.md"), "Gemini @x.md\n")
	writeFile(t, filepath.Join(dir, "x.md"), "@x.md\n")
	writeFile(t, filepath.Join(dir, "AGENTS.md"), "Agents rules, long enough.\n")
	writeFile(t, filepath.Join(dir, "BIG.md"), strings.Repeat("a line of a large file\n", 40000))
	files := NewFiles(dir, root, "", nil)
	for name, h := range hostile {
		t.Run(name, func(t *testing.T) {
			steps := func(n int) (int, int) {
				text := h.text(dir, n)
				w := &work{}
				spans := files.find(h.agent, text, w)
				return w.steps, len(spans)
			}
			const n = 2000
			small, spans := steps(n)
			large, _ := steps(4 * n)
			t.Logf("%d markers: %d steps, %d spans; %d markers: %d steps", n, small, spans, 4*n, large)
			if small == 0 || large > 5*small {
				t.Errorf("%d steps for %d markers, %d for %d: more than linear", small, n, large, 4*n)
			}
		})
	}
}

// TestAttributeBudget: an attribution over its budget of steps records
// the request as one framing segment, with a note.
func TestAttributeBudget(t *testing.T) {
	c := newClaudeTree(t, "# Project rules\n\nUse tabs.\n")
	body := []byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":` + q(c.context) + `},{"type":"text","text":"hi"}]}]}`)
	segs, model, _, notes := attribute(Claude, "/v1/messages", body, c.files(), nil, 100)
	checkSum(t, segs, body)
	if len(segs) != 1 || segs[0].Kind != KindFraming || model != "m" || len(notes) != 1 || !strings.Contains(notes[0], "budget") {
		t.Errorf("segments %s, model %q, notes %q", segList(segs), model, notes)
	}
	// the default budget is far above what the request takes
	segs, _, _, notes = Attribute(Claude, "/v1/messages", body, c.files(), nil)
	if len(segs) < 3 || strings.Contains(strings.Join(notes, " "), "budget") {
		t.Errorf("segments %s, notes %q", segList(segs), notes)
	}
}

// TestAttributeOnlyContext: a file is attributed where the agent puts its
// context; the same text quoted in the prompt, an earlier turn or a tool
// result is the prompt's or the conversation's, with a note, in each
// agent's wire format.
func TestAttributeOnlyContext(t *testing.T) {
	dir := realTemp(t)
	claude, agents, gemini := filepath.Join(dir, "CLAUDE.md"), filepath.Join(dir, "AGENTS.md"), filepath.Join(dir, "GEMINI.md")
	claudeText, agentsText, geminiText := "# Claude rules\nUse tabs.\n", "# Agents rules\nUse spaces.\n", "# Gemini rules\nBe kind.\n"
	writeFile(t, claude, claudeText)
	writeFile(t, agents, agentsText)
	writeFile(t, gemini, geminiText)
	files := NewFiles(dir, dir, "", nil)
	header := "<system-reminder>\nContents of " + claude + " (project instructions, checked into the codebase):\n\n" + claudeText + "</system-reminder>"
	codexBlock := "# AGENTS.md instructions for " + dir + "\n\n<INSTRUCTIONS>\n" + agentsText + "\n</INSTRUCTIONS>"
	geminiBlock := "<session_context>\n--- Context from: " + gemini + " ---\n" + strings.TrimSpace(geminiText) + "\n--- End of Context from: " + gemini + " ---\n</session_context>"
	for _, tc := range []struct {
		name, path string
		agent      Agent
		body       string
		file       string // the one file attributed
		notes      []string
	}{
		{"Claude Code: the prompt and a tool result", "/v1/messages", Claude,
			`{"messages":[{"role":"user","content":[{"type":"text","text":` + q(header) + `},{"type":"text","text":"look"}]},` +
				`{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Read","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":` + q(agentsText) + `},{"type":"text","text":` + q("Is this good?\n"+claudeText) + `}]}]}`,
			claude, []string{"the conversation holds the text of " + agents, "the prompt holds the text of " + claude}},
		{"Codex: a tool output and the prompt", "/v1/responses", Codex,
			`{"input":[{"role":"user","content":[{"type":"input_text","text":` + q(codexBlock) + `}]},` +
				`{"type":"function_call_output","call_id":"c","output":` + q(geminiText) + `},` +
				`{"role":"user","content":[{"type":"input_text","text":` + q("quote: "+agentsText) + `}]}]}`,
			agents, []string{"the conversation holds the text of " + gemini, "the prompt holds the text of " + agents}},
		{"Gemini CLI: a function response and a later turn", "/v1beta/models/m:generateContent", Gemini,
			`{"contents":[{"role":"user","parts":[{"text":` + q(geminiBlock) + `}]},{"role":"model","parts":[{"text":"ok"}]},` +
				`{"role":"user","parts":[{"text":` + q("earlier: "+claudeText) + `}]},{"role":"model","parts":[{"functionCall":{"name":"read"}}]},` +
				`{"role":"user","parts":[{"functionResponse":{"name":"read","response":{"output":` + q(geminiText) + `}}}]},` +
				`{"role":"user","parts":[{"text":"go on"}]}]}`,
			gemini, []string{"the conversation holds the text of " + claude, "the conversation holds the text of " + gemini}},
		{"Chat Completions: the system message only", "/v1/chat/completions", "",
			`{"messages":[{"role":"system","content":` + q("Be good.\n"+agentsText) + `},{"role":"tool","content":` + q(claudeText) + `},{"role":"user","content":"hi"}]}`,
			agents, []string{"the conversation holds the text of " + claude}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			if !json.Valid(body) {
				t.Fatal("the test's body is not JSON")
			}
			segs, _, _, notes := Attribute(tc.agent, tc.path, body, files, nil)
			checkSum(t, segs, body)
			var got []string
			for _, s := range segs {
				if s.File != nil {
					got = append(got, s.File.Path+" "+s.File.Status)
				}
			}
			if len(got) != 1 || got[0] != tc.file+" whole" {
				t.Errorf("files %q, want %s whole: %s", got, tc.file, segList(segs))
			}
			all := strings.Join(notes, "\n")
			for _, n := range tc.notes {
				if !strings.Contains(all, n) {
					t.Errorf("no note %q in %q", n, notes)
				}
			}
		})
	}
}

// TestSentTrimmed: a file the agent sent whole but for white space at its
// start, CRLF line ends kept, or a BOM, is whole; Claude Code's text
// without the file's HTML comments and frontmatter is whole; Codex's cut
// within a character, sent as U+FFFD, is a cut at the character's start.
func TestSentTrimmed(t *testing.T) {
	dir := realTemp(t)
	files := NewFiles(dir, "", "", nil)
	for _, tc := range []struct {
		name, file, sent string
		agent            Agent
		status           string
		cut              int
		note             string
	}{
		{"leading blank lines and CRLF", "\n\n  # Claude\r\nLeading blank lines and CRLF.\r\n\r\n", "# Claude\r\nLeading blank lines and CRLF.", Claude, SentWhole, 0, "white space or BOM at its start"},
		{"a BOM", "\uFEFF# Gem\nrule\n", "# Gem\nrule", Gemini, SentWhole, 0, "white space or BOM"},
		{"white space at the end only", "# A\nrule\n\n", "# A\nrule", Claude, SentWhole, 0, ""},
		{"HTML comments, for Claude Code", "# Rules\nRule one.\n<!--\nnotes\n-->\nRule two.\n", "# Rules\nRule one.\nRule two.", Claude, SentWhole, 0, "HTML comments"},
		{"frontmatter, for Claude Code", "---\na: b\n---\nBody.\n", "Body.", Claude, SentWhole, 0, "frontmatter"},
		{"HTML comments, for Codex", "# Rules\nRule one.\n<!--\nnotes\n-->\nRule two.\n", "# Rules\nRule one.\nRule two.", Codex, SentChanged, 0, ""},
		{"a cut within a character", "Règle é à ü\n", "Règle \uFFFD", Codex, SentCut, len("Règle "), "within a character"},
		{"a cut at a character", "Règle é à ü\n", "Règle é", Codex, SentCut, len("Règle é"), ""},
		{"U+FFFD in the file itself", "ab\uFFFDcd", "ab\uFFFD", Codex, SentCut, 5, ""},
		{"U+FFFD where the file has ASCII", "abcdef", "ab\uFFFD", Codex, SentChanged, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".md")
			writeFile(t, p, tc.file)
			w := &work{}
			s := files.sent(tc.agent, p, tc.sent, w)
			if s.Status != tc.status || tc.status == SentCut && (s.CutAt == nil || *s.CutAt != tc.cut) {
				t.Errorf("status %s cut %v, want %s %d", s.Status, s.CutAt, tc.status, tc.cut)
			}
			if all := strings.Join(w.notes, "\n"); tc.note == "" && all != "" || !strings.Contains(all, tc.note) {
				t.Errorf("notes %q, want %q", w.notes, tc.note)
			}
		})
	}
}

// TestCodexBlockWhiteSpace: Codex sends a file byte for byte, its own
// leading blank lines included: the file is found where the block starts,
// and where a document of the block starts after the blank line that
// joins it to the one before; a file sent without its leading white space
// is found too. A cut within a character is a cut.
func TestCodexBlockWhiteSpace(t *testing.T) {
	root := realTemp(t)
	dir, sub := filepath.Join(root, "p"), filepath.Join(root, "p", "sub")
	top, below := filepath.Join(dir, "AGENTS.md"), filepath.Join(sub, "AGENTS.md")
	topText, belowText := "\n\n\n# Agents\r\nLeading blank lines and CRLF.\r\n\r\n", "\n  # Sub\nSub rules, with é in them.\n"
	writeFile(t, top, topText)
	writeFile(t, below, belowText)
	files := NewFiles(sub, dir, "", nil)
	block := func(docs string) []byte {
		text := "# AGENTS.md instructions for " + sub + "\n\n<INSTRUCTIONS>\n" + docs + "\n</INSTRUCTIONS>"
		return []byte(`{"input":[{"role":"user","content":[{"type":"input_text","text":` + q(text) + `}]}]}`)
	}
	cut := strings.Index(belowText, "é") + 1 // within é
	for _, tc := range []struct {
		name, docs string
		want       []string
	}{
		{"byte for byte", topText + "\n\n" + belowText, []string{top + " whole", below + " whole"}},
		{"the second without its leading white space", topText + "\n\n" + strings.TrimLeft(belowText, "\n "), []string{top + " whole", below + " whole"}},
		{"the second cut within a character", topText + "\n\n" + belowText[:cut-1] + "\uFFFD", []string{top + " whole", fmt.Sprintf("%s cut at %d", below, cut-1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := block(tc.docs)
			segs, _, _, _ := Attribute(Codex, "/v1/responses", body, files, nil)
			checkSum(t, segs, body)
			var got []string
			for _, s := range segs {
				if s.Kind == KindInstruction {
					if s.File == nil {
						got = append(got, s.Name+" no file")
						continue
					}
					got = append(got, s.File.Path+" "+sentText(s.File))
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("files %q, want %q", got, tc.want)
			}
		})
	}
}

// TestClaudeHeaderPaths: Claude Code's header names a file by an
// absolute path of Linux or macOS, of Windows (a drive, a share), and
// without a description for a file it loads later in the session.
func TestClaudeHeaderPaths(t *testing.T) {
	for _, tc := range []struct{ header, path, desc string }{
		{"Contents of /p/CLAUDE.md (project instructions, checked into the codebase):\n\n", "/p/CLAUDE.md", "project instructions, checked into the codebase"},
		{`Contents of C:\Users\me\p\CLAUDE.md (project instructions, checked into the codebase):` + "\n\n", `C:\Users\me\p\CLAUDE.md`, "project instructions, checked into the codebase"},
		{"Contents of C:/Users/me/CLAUDE.md (user's private global instructions for all projects):\n\n", "C:/Users/me/CLAUDE.md", "user's private global instructions for all projects"},
		{`Contents of \\server\share\p\CLAUDE.md (project instructions, checked into the codebase):` + "\n\n", `\\server\share\p\CLAUDE.md`, "project instructions, checked into the codebase"},
		{"Contents of /p/sub/CLAUDE.md:\n\n", "/p/sub/CLAUDE.md", ""},
		{"Contents of /p/a (b)/CLAUDE.md (x):\n\n", "/p/a (b)/CLAUDE.md", "x"},
	} {
		m := claudeHeader.FindStringSubmatch("<system-reminder>\n" + tc.header + "rules\n</system-reminder>")
		if m == nil || m[1] != tc.path || m[2] != tc.desc {
			t.Errorf("%q: %q, want path %q description %q", tc.header, m, tc.path, tc.desc)
		}
	}
	for _, s := range []string{"Contents of relative/CLAUDE.md (x):\n\n", "Contents of C:relative (x):\n\n", "Contents of \\single (x):\n\n"} {
		if claudeHeader.MatchString(s) {
			t.Errorf("%q is a header", s)
		}
	}
}
