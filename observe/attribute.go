package observe

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/ctxaudit/ctx/measure"
)

// The APIs of a request, from its path.
const (
	APIMessages        = "messages"         // Anthropic Messages
	APICountTokens     = "count_tokens"     // Anthropic count_tokens, Gemini countTokens
	APIResponses       = "responses"        // OpenAI Responses
	APIChatCompletions = "chat_completions" // OpenAI Chat Completions
	APIGenerateContent = "generate_content" // Gemini generateContent, streamGenerateContent
	APIOther           = "other"
)

// apiOf names the API of a request path.
func apiOf(path string) string {
	p := path
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	switch {
	case strings.HasSuffix(p, "/messages/count_tokens"), strings.HasSuffix(p, ":countTokens"):
		return APICountTokens
	case strings.HasSuffix(p, "/messages"):
		return APIMessages
	case strings.HasSuffix(p, "/responses"):
		return APIResponses
	case strings.HasSuffix(p, "/chat/completions"):
		return APIChatCompletions
	case strings.HasSuffix(p, ":generateContent"), strings.HasSuffix(p, ":streamGenerateContent"):
		return APIGenerateContent
	}
	return APIOther
}

// cleanPath returns a request's path and query without credentials: the
// key parameter of Gemini's API, and any other parameter named like one.
// The query is split as any server may split it (at & and ;), and a
// parameter whose name or value url.ParseQuery cannot read is left out
// all the same when its name is that of a credential.
func cleanPath(u *url.URL) string {
	var kept []string
	changed := false
	for _, part := range strings.FieldsFunc(u.RawQuery, func(r rune) bool { return r == '&' || r == ';' }) {
		name, _, _ := strings.Cut(part, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if secretParam(name) {
			changed = true
			continue
		}
		kept = append(kept, part)
	}
	if !changed {
		return u.RequestURI()
	}
	out := u.EscapedPath()
	if len(kept) > 0 {
		out += "?" + strings.Join(kept, "&")
	}
	return out
}

// secretParam reports whether a query parameter carries a credential.
func secretParam(k string) bool {
	switch strings.ToLower(k) {
	case "key", "api_key", "apikey", "access_token", "token", "auth", "sig", "signature", "x-goog-api-key":
		return true
	}
	return false
}

// piece is a span of a request body [start, end) assigned to a segment.
type piece struct {
	start, end int
	kind       Kind
	name       string
	text       string // what the model reads of it (the decoded text)
	file       *SentFile
}

// attributor cuts one request body into pieces.
type attributor struct {
	body   []byte
	agent  Agent
	files  *Files
	pieces []piece
	w      *work
}

// The budget of one attribution, in steps (the bytes its searches and
// comparisons look at): far above what a request of the agents takes,
// which grows with the body and the files looked for, and far below what
// a text crafted to make a search slow would take.
const (
	budgetPerByte      = 64
	budgetPerCandidate = 8
	budgetBase         = 1 << 20
)

// Attribute cuts a request body, sent by agent to path, into segments that
// add up to its bytes, and finds the instruction files of files in it:
// only where the agent puts its context (see the formats below); a file
// the prompt or the conversation quotes stays theirs, with a note. model
// and stream are read from the body; notes say what could not be
// attributed. The work is bounded by a budget proportional to the body:
// past it, the request is one framing segment, with a note.
func Attribute(agent Agent, path string, body []byte, files *Files, est measure.Estimator) (segs []Segment, model string, stream bool, notes []string) {
	return attribute(agent, path, body, files, est, 0)
}

// attribute is Attribute with a budget of budget steps (0: the default).
func attribute(agent Agent, path string, body []byte, files *Files, est measure.Estimator, budget int) (segs []Segment, model string, stream bool, notes []string) {
	if est == nil {
		est = measure.Default()
	}
	root, err := parseJSON(body)
	if err != nil {
		notes = append(notes, "the body is "+err.Error()+": one segment")
		return []Segment{measureSegment(Segment{Kind: KindFraming}, string(body), len(body), est)}, "", false, notes
	}
	if budget <= 0 {
		budget = len(body)*(budgetPerByte+budgetPerCandidate*len(files.Candidates())) + budgetBase
	}
	a := &attributor{body: body, agent: agent, files: files, w: &work{budget: budget}}
	model, _ = root.get("model").str(body)
	if sv := root.get("stream"); sv != nil {
		stream = string(body[sv.start:sv.end]) == "true"
	}
	api := apiOf(path)
	if api == APIGenerateContent || api == APICountTokens && strings.Contains(path, ":countTokens") {
		if i := strings.Index(path, "/models/"); i >= 0 {
			model = path[i+len("/models/"):]
			if j := strings.IndexAny(model, ":?"); j >= 0 {
				model = model[:j]
			}
		}
		stream = strings.Contains(path, ":streamGenerateContent")
	}
	switch {
	case root.get("messages") != nil && (root.get("system") != nil || api == APIMessages || api == APICountTokens && !strings.Contains(path, ":")):
		a.anthropic(root)
	case root.get("input") != nil || root.get("instructions") != nil:
		a.responses(root)
	case root.get("contents") != nil || root.get("systemInstruction") != nil || root.get("generateContentRequest") != nil:
		if g := root.get("generateContentRequest"); g != nil {
			root = g
		}
		a.gemini(root)
	case root.get("messages") != nil:
		a.chat(root)
	default:
		a.strings(root, KindConversation)
	}
	if a.w.over() {
		notes = append(notes, fmt.Sprintf("the search for files stopped at its budget (%d steps for a body of %d bytes): one segment", a.w.budget, len(body)))
		return []Segment{measureSegment(Segment{Kind: KindFraming}, string(body), len(body), est)}, model, stream, notes
	}
	return a.segments(est), model, stream, append(notes, a.w.notes...)
}

// context adds the pieces of a string value where the agent puts its
// context, whose text is of kind base: the instruction and memory files
// found in it, the spans that classify returns (decoded offsets), and base
// for the rest.
func (a *attributor) context(v *value, base Kind, name string, classify func(string) []span) {
	a.text(v, base, name, classify, true)
}

// other adds a string value where the agent does not put its context
// (the prompt, the conversation, a tool result): all of it is base, and a
// file it quotes is noted.
func (a *attributor) other(v *value, base Kind) { a.text(v, base, "", nil, false) }

func (a *attributor) text(v *value, base Kind, name string, classify func(string) []span, search bool) {
	s, ok := v.str(a.body)
	if !ok {
		return
	}
	var spans []span
	if search {
		spans = a.files.find(a.agent, s, a.w)
	} else if a.files != nil && len(s) >= minSearched {
		for _, p := range a.files.quoted(s, a.w) {
			a.w.note(fmt.Sprintf("the %s holds the text of %s: counted as %s, not as the file", kindLabels[base], p, kindLabels[base]))
		}
	}
	if classify != nil {
		spans = overlay(spans, classify(s))
	}
	if len(spans) == 0 {
		// all of it is of kind base: its bytes between the quotes
		a.add(piece{start: v.start + 1, end: v.end - 1, kind: base, name: name, text: s})
		return
	}
	raw := func(i int) int { return v.start + 1 + i } // a string without escapes
	if !plain(a.body[v.start:v.end]) {
		offs, ok := rawOffsets(a.body[v.start:v.end])
		if !ok || len(offs) != len(s)+1 {
			// cannot map the text back to its bytes: the whole string
			a.add(piece{start: v.start + 1, end: v.end - 1, kind: base, name: name, text: s})
			return
		}
		raw = func(i int) int { return v.start + offs[i] }
	}
	at := 0
	for _, sp := range spans {
		if sp.start > at {
			a.add(piece{start: raw(at), end: raw(sp.start), kind: base, name: name, text: s[at:sp.start]})
		}
		a.add(piece{start: raw(sp.start), end: raw(sp.end), kind: sp.kind, name: sp.name, text: s[sp.start:sp.end], file: sp.file})
		at = sp.end
	}
	if at < len(s) {
		a.add(piece{start: raw(at), end: raw(len(s)), kind: base, name: name, text: s[at:]})
	}
}

// raw adds a value's bytes as one piece (a tool's schema, a block the
// model reads as it is).
func (a *attributor) raw(v *value, kind Kind, name string) {
	if v == nil {
		return
	}
	a.add(piece{start: v.start, end: v.end, kind: kind, name: name, text: string(a.body[v.start:v.end])})
}

func (a *attributor) add(p piece) {
	if p.end > p.start {
		a.pieces = append(a.pieces, p)
	}
}

// strings adds every string below v as text of kind base (not the
// agent's context), and the rest of v to the framing.
func (a *attributor) strings(v *value, base Kind) {
	if v == nil {
		return
	}
	switch v.kind {
	case '"':
		a.other(v, base)
	case '{', '[':
		for _, k := range v.kids {
			a.strings(k, base)
		}
	}
}

// tools adds a list of tool schemas: MCP tools grouped by server.
func (a *attributor) tools(list []*value, nameOf func(*value) string) {
	for _, t := range list {
		name := nameOf(t)
		if server, ok := mcpServer(name); ok {
			a.raw(t, KindMCPTools, server)
			continue
		}
		a.raw(t, KindTool, name)
	}
}

// mcpServer returns the MCP server of a tool name: "mcp__server__tool",
// the form Claude Code and Codex give the tools of MCP servers.
func mcpServer(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", false
	}
	server, _, ok := strings.Cut(rest, "__")
	return server, ok && server != ""
}

// Anthropic Messages (Claude Code). The context: the system prompt, the
// text of a system turn, and every text block that is a
// <system-reminder> (Claude Code's memory files, at the start and when it
// loads one later). The prompt, the other turns and the tool results are
// not.
func (a *attributor) anthropic(root *value) {
	if sys := root.get("system"); sys != nil {
		if sys.kind == '"' {
			a.context(sys, KindSystemPrompt, "", nil)
		}
		for _, b := range sys.items() {
			a.context(b.get("text"), KindSystemPrompt, "", nil)
		}
	}
	a.tools(root.get("tools").items(), func(t *value) string {
		if n, ok := t.get("name").str(a.body); ok {
			return n
		}
		n, _ := t.get("type").str(a.body)
		return n
	})
	msgs := root.get("messages").items()
	lastUser := -1
	for i, m := range msgs {
		if r, _ := m.get("role").str(a.body); r == "user" {
			lastUser = i
		}
	}
	for i, m := range msgs {
		role, _ := m.get("role").str(a.body)
		content := m.get("content")
		blocks := content.items()
		if content != nil && content.kind == '"' {
			blocks = []*value{m}
		}
		for _, b := range blocks {
			tv := b.get("text")
			if b == m {
				tv = content
			}
			if typ, _ := b.get("type").str(a.body); b != m && typ != "text" || tv == nil {
				a.strings(b, KindConversation)
				continue
			}
			s, _ := tv.str(a.body)
			switch {
			case role == "system":
				a.context(tv, KindEnvironment, "", claudeSystem)
			case strings.HasPrefix(s, "<system-reminder>"):
				kind := KindReminder
				if strings.Contains(s, "# gitStatus") {
					kind = KindEnvironment
				}
				a.context(tv, kind, "", nil)
			case role == "user" && i == lastUser:
				a.other(tv, KindPrompt)
			default:
				a.other(tv, KindConversation)
			}
		}
	}
}

// claudeSystem finds the list of skills in Claude Code's system turn.
func claudeSystem(s string) []span {
	const marker = "The following skills are available for use with the Skill tool:"
	i := strings.Index(s, marker)
	if i < 0 {
		return nil
	}
	end := len(s)
	if j := strings.Index(s[i:], "\n\nToday's date is"); j >= 0 {
		end = i + j
	}
	return []span{{start: i, end: end, kind: KindSkills}}
}

// OpenAI Responses (Codex). The context: the instructions, the developer
// (and system) messages, and the user messages Codex writes itself (its
// "# AGENTS.md instructions for DIR" block, <user_instructions>,
// <environment_context>). The prompt, the other messages and the tool
// calls and outputs are not.
func (a *attributor) responses(root *value) {
	a.context(root.get("instructions"), KindSystemPrompt, "", nil)
	a.tools(root.get("tools").items(), func(t *value) string {
		if n, ok := t.get("name").str(a.body); ok {
			return n
		}
		n, _ := t.get("type").str(a.body)
		return n
	})
	input := root.get("input")
	if input != nil && input.kind == '"' {
		a.other(input, KindPrompt)
		return
	}
	items := input.items()
	lastUser := -1
	for i, it := range items {
		if r, _ := it.get("role").str(a.body); r == "user" {
			lastUser = i
		}
	}
	firstDeveloper := true
	for i, it := range items {
		role, _ := it.get("role").str(a.body)
		if typ, _ := it.get("type").str(a.body); typ != "" && typ != "message" || role == "assistant" {
			a.strings(it, KindConversation)
			continue
		}
		content := it.get("content")
		blocks := content.items()
		if content != nil && content.kind == '"' {
			blocks = nil
			if kind := roleKind(role, i == lastUser); kind == KindSystemPrompt {
				a.context(content, kind, "", nil)
			} else {
				a.other(content, kind)
			}
		}
		for _, b := range blocks {
			tv := b.get("text")
			s, ok := tv.str(a.body)
			if !ok {
				a.strings(b, KindConversation)
				continue
			}
			switch {
			case role == "developer" || role == "system":
				switch {
				case strings.HasPrefix(s, "<skills_instructions>"):
					a.context(tv, KindSkills, "", nil)
				case strings.HasPrefix(s, "<permissions instructions>"), strings.HasPrefix(s, "<environment_context>"):
					a.context(tv, KindEnvironment, "", nil)
				case firstDeveloper:
					a.context(tv, KindSystemPrompt, "", nil)
				default:
					a.context(tv, KindReminder, "", nil)
				}
				firstDeveloper = false
			case strings.HasPrefix(s, "<environment_context>"):
				a.context(tv, KindEnvironment, "", nil)
			case strings.HasPrefix(s, "# AGENTS.md instructions for"), strings.HasPrefix(s, "<user_instructions>"):
				a.context(tv, KindReminder, "", nil)
			case i == lastUser:
				a.other(tv, KindPrompt)
			default:
				a.other(tv, KindConversation)
			}
		}
	}
}

func roleKind(role string, last bool) Kind {
	switch {
	case role == "developer" || role == "system":
		return KindSystemPrompt
	case role == "user" && last:
		return KindPrompt
	}
	return KindConversation
}

// Gemini generateContent (Gemini CLI). The context: the system
// instruction, a <session_context> part (where Gemini CLI puts its
// context files), and the parts of the user contents before the first
// answer of the model, except the prompt's. The prompt, the other turns
// and the function calls and responses are not.
func (a *attributor) gemini(root *value) {
	if si := root.get("systemInstruction"); si != nil {
		for _, p := range si.get("parts").items() {
			a.context(p.get("text"), KindSystemPrompt, "", nil)
		}
	}
	for _, t := range root.get("tools").items() {
		decls := t.get("functionDeclarations").items()
		if len(decls) == 0 {
			for i, k := range t.keys { // googleSearch and the like
				a.raw(t.kids[i], KindTool, k)
			}
			continue
		}
		a.tools(decls, func(d *value) string { n, _ := d.get("name").str(a.body); return n })
	}
	contents := root.get("contents").items()
	lastUser := -1
	for i, c := range contents {
		if r, _ := c.get("role").str(a.body); r == "user" || r == "" {
			if !functionResponse(c, a.body) {
				lastUser = i
			}
		}
	}
	answered := false // the model answered: what follows is the conversation
	for i, c := range contents {
		role, _ := c.get("role").str(a.body)
		if role == "model" {
			answered = true
		}
		for _, p := range c.get("parts").items() {
			tv := p.get("text")
			s, ok := tv.str(a.body)
			if !ok {
				a.strings(p, KindConversation)
				continue
			}
			switch {
			case strings.HasPrefix(s, "<session_context>"):
				a.context(tv, KindEnvironment, "", nil)
			case role != "model" && i == lastUser:
				a.other(tv, KindPrompt)
			case role != "model" && !answered:
				a.context(tv, KindConversation, "", nil)
			default:
				a.other(tv, KindConversation)
			}
		}
	}
}

// functionResponse reports whether a content of Gemini holds tool results
// (a user turn the agent writes, not the user).
func functionResponse(c *value, body []byte) bool {
	for _, p := range c.get("parts").items() {
		if p.get("functionResponse") != nil {
			return true
		}
	}
	return false
}

// OpenAI Chat Completions (other clients). The context: the system and
// developer messages.
func (a *attributor) chat(root *value) {
	a.tools(root.get("tools").items(), func(t *value) string {
		n, _ := t.get("function").get("name").str(a.body)
		return n
	})
	msgs := root.get("messages").items()
	lastUser := -1
	for i, m := range msgs {
		if r, _ := m.get("role").str(a.body); r == "user" {
			lastUser = i
		}
	}
	for i, m := range msgs {
		role, _ := m.get("role").str(a.body)
		kind := roleKind(role, i == lastUser)
		add := func(v *value) {
			if kind == KindSystemPrompt {
				a.context(v, kind, "", nil)
			} else {
				a.other(v, kind)
			}
		}
		content := m.get("content")
		if content != nil && content.kind == '"' {
			add(content)
			continue
		}
		for _, b := range content.items() {
			if tv := b.get("text"); tv != nil {
				add(tv)
			} else {
				a.strings(b, KindConversation)
			}
		}
		if tc := m.get("tool_calls"); tc != nil {
			a.strings(tc, KindConversation)
		}
	}
}

// segments turns the pieces into segments: the bytes no piece holds are
// the framing; pieces of one kind and name are one segment, files one
// segment each; every segment is measured.
func (a *attributor) segments(est measure.Estimator) []Segment {
	sort.SliceStable(a.pieces, func(i, j int) bool { return a.pieces[i].start < a.pieces[j].start })
	var framing []byte
	framingBytes := 0
	at := 0
	type group struct {
		seg   Segment
		texts []string
	}
	var groups []*group
	index := map[[2]string]*group{}
	files := map[*SentFile]*group{}
	for _, p := range a.pieces {
		if p.start < at { // an overlap cannot happen; framing keeps the count exact if it does
			p.start = at
			if p.end <= p.start {
				continue
			}
			p.text = string(a.body[p.start:p.end])
		}
		if p.start > at {
			framing = append(framing, a.body[at:p.start]...)
			framingBytes += p.start - at
		}
		at = p.end
		if p.file != nil {
			// the pieces of one file (Gemini CLI writes imports into it)
			g := files[p.file]
			if g == nil {
				g = &group{seg: Segment{Kind: p.kind, Name: p.name, File: p.file}}
				files[p.file] = g
				groups = append(groups, g)
			}
			g.seg.Bytes += p.end - p.start
			g.texts = append(g.texts, p.text)
			continue
		}
		key := [2]string{string(p.kind), p.name}
		g := index[key]
		if g == nil {
			g = &group{seg: Segment{Kind: p.kind, Name: p.name}}
			index[key] = g
			groups = append(groups, g)
		}
		g.seg.Bytes += p.end - p.start
		g.texts = append(g.texts, p.text)
	}
	if at < len(a.body) {
		framing = append(framing, a.body[at:]...)
		framingBytes += len(a.body) - at
	}
	out := make([]Segment, 0, len(groups)+1)
	for _, g := range groups {
		text := g.texts[0]
		if len(g.texts) > 1 {
			text = strings.Join(g.texts, "")
		}
		out = append(out, measureSegment(g.seg, text, g.seg.Bytes, est))
	}
	if framingBytes > 0 {
		out = append(out, measureSegment(Segment{Kind: KindFraming}, unsafe.String(unsafe.SliceData(framing), len(framing)), framingBytes, est))
	}
	return out
}

// measureSegment sets the sizes of s: bytes in the body, and the chars and
// tokens of the text the model reads.
func measureSegment(s Segment, text string, bytes int, est measure.Estimator) Segment {
	s.Bytes = bytes
	s.Chars = utf8.RuneCountInString(text)
	// a view of the text, not a copy: an estimator only reads its input
	s.Tokens = est.Tokens(unsafe.Slice(unsafe.StringData(text), len(text)))
	return s
}

// span is a part of a decoded text: [start, end) in its bytes.
type span struct {
	start, end int
	kind       Kind
	name       string
	file       *SentFile
}

// overlay returns files with the spans of more that do not overlap them,
// sorted: the files take precedence.
func overlay(files, more []span) []span {
	out := append([]span(nil), files...)
	for _, m := range more {
		for _, f := range files {
			if m.start < f.end && f.start < m.end { // cut m around f
				if m.start < f.start {
					out = append(out, span{start: m.start, end: f.start, kind: m.kind, name: m.name})
				}
				m.start = max(m.start, f.end)
			}
		}
		if m.end > m.start {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// The headers with which the agents name a file they send.
var (
	// Claude Code: "Contents of PATH (DESCRIPTION):\n\n", or "Contents of
	// PATH:\n\n" for a file it loads later in the session, the file to the
	// next header or the end of the reminder; PATH is absolute: /..., or
	// on Windows C:\... (C:/...) and \\server\share\...
	claudeHeader = regexp.MustCompile(`Contents of ((?:/|[A-Za-z]:[\\/]|\\\\)[^\n]*?)(?: \(([^()\n]*)\))?:\n\n`)
	// Gemini CLI: "--- Context from: PATH ---\n" ... "\n--- End of Context from: PATH ---"
	geminiHeader = regexp.MustCompile(`--- Context from: ([^\n]+?) ---\n`)
	geminiFooter = regexp.MustCompile(`\n--- End of Context from: ([^\n]+) ---`)
	// Codex: "# AGENTS.md instructions for DIR\n\n<INSTRUCTIONS>\n" ... "\n</INSTRUCTIONS>"
	codexHeader = regexp.MustCompile(`# AGENTS\.md instructions for ([^\n]+)\n\n<INSTRUCTIONS>\n`)
)
