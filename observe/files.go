package observe

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/profile"
)

// maxFileBytes bounds the read of one instruction file.
const maxFileBytes = 16 << 20

// minSearched is the least size (white space at its ends aside) of a file
// that is looked for by its bytes alone, where no header of the agent
// names it: a shorter text is too likely to appear by chance.
const minSearched = 8

// Files are the files on disk that a request may hold: those an agent
// names in its request, and the candidates given, looked for by their
// bytes. It is safe for concurrent use.
type Files struct {
	candidates []string
	mu         sync.Mutex
	data       map[string]*fileData
}

type fileData struct {
	b   []byte
	err error
	// computed once: the file as a string, its hash, its text without the
	// white space and BOM at its ends (core, which starts at lead), without
	// the white space at its end (right), and Claude Code's text of it
	// trimmed (claude: without frontmatter and HTML comments)
	s, hash, core, right, claude string
	lead                         int
}

// instructionNames are the instruction files of every agent, looked for in
// the working directory, its parents up to the root, and below it.
var instructionNames = []string{"AGENTS.md", "AGENTS.override.md", "AGENTS.local.md", "CLAUDE.md", "CLAUDE.local.md",
	".claude/CLAUDE.md", "GEMINI.md", ".github/copilot-instructions.md"}

// homeNames are the user-level instruction files of the agents.
var homeNames = []string{".codex/AGENTS.md", ".codex/AGENTS.override.md", ".claude/CLAUDE.md", ".gemini/GEMINI.md",
	".config/agents/GLOBAL.md"}

// maxWalked bounds the entries visited below the working directory.
const maxWalked = 20000

// NewFiles returns the files of a session in dir: the files given (an
// agent's predicted chain, first), then every instruction file of the
// agents in dir and its parents up to root ("" for the file system root),
// below dir (up to 20,000 entries, skipping .git and node_modules), and in
// home.
func NewFiles(dir, root, home string, given []string) *Files {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if p == "" || seen[p] {
			return
		}
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			return
		}
		seen[p] = true
		out = append(out, p)
	}
	for _, p := range given {
		add(p)
	}
	for d := dir; d != ""; {
		for _, n := range instructionNames {
			add(filepath.Join(d, n))
		}
		rules, _ := filepath.Glob(filepath.Join(d, ".claude", "rules", "*.md"))
		for _, r := range rules {
			add(r)
		}
		if d == root {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	if dir != "" {
		n := 0
		want := map[string]bool{}
		for _, name := range instructionNames {
			if !strings.Contains(name, "/") {
				want[name] = true
			}
		}
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			n++
			if err != nil || n > maxWalked {
				return filepath.SkipDir
			}
			if d.IsDir() {
				if name := d.Name(); p != dir && (name == ".git" || name == "node_modules") {
					return filepath.SkipDir
				}
				return nil
			}
			if want[d.Name()] {
				add(p)
			}
			return nil
		})
	}
	if home != "" {
		for _, n := range homeNames {
			add(filepath.Join(home, n))
		}
		rules, _ := filepath.Glob(filepath.Join(home, ".claude", "rules", "*.md"))
		for _, r := range rules {
			add(r)
		}
	}
	return &Files{candidates: out, data: map[string]*fileData{}}
}

// get returns the file at p, read once, with what the searches need of
// it computed once.
func (f *Files) get(p string) *fileData {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d, ok := f.data[p]; ok {
		return d
	}
	b, _, err := fileio.Read(p, maxFileBytes)
	d := &fileData{b: b, err: err}
	if err == nil {
		d.s = string(b)
		d.hash = measure.Hash(b)
		d.core = trimText(d.s)
		d.lead = len(d.s) - len(strings.TrimLeftFunc(d.s, trimmed))
		d.right = strings.TrimRight(d.s, " \t\r\n")
		if t := string(profile.AgentText(profile.Claude, b)); t != d.s {
			d.claude = trimText(t)
		} else {
			d.claude = d.core
		}
	}
	f.data[p] = d
	return d
}

// Candidates returns the files looked for by their bytes.
func (f *Files) Candidates() []string {
	if f == nil {
		return nil
	}
	return append([]string(nil), f.candidates...)
}

// trimText is s without the white space and the BOM at its ends, as the
// agents written in JavaScript (Claude Code, Gemini CLI) trim a file.
func trimText(s string) string { return strings.TrimFunc(s, trimmed) }

func trimmed(r rune) bool { return r == '\uFEFF' || unicode.IsSpace(r) }

// sent returns the record of a file the agent sent as text: whole, cut or
// changed against the file on disk at p. agent is the agent whose wire
// format holds the text: Claude Code's text of a file is held against the
// file without what Claude Code leaves out of it (frontmatter, HTML
// comments). What makes a file whole other than its bytes is noted in w.
func (f *Files) sent(agent Agent, p, text string, w *work) *SentFile {
	w.add(2 * len(text))
	s := &SentFile{Path: p, SentBytes: len(text), SentHash: measure.Hash([]byte(text))}
	d := f.get(p)
	if d.err != nil {
		s.Status = SentUnread
		return s
	}
	file := d.s
	s.FileBytes, s.FileHash = len(file), d.hash
	right := strings.TrimRight(text, " \t\r\n")
	cut := func(n int) {
		s.Status = SentCut
		s.CutAt = &n
	}
	switch {
	case text == file, right == d.right:
		s.Status = SentWhole
	case trimText(text) == d.core:
		// Claude Code and Gemini CLI trim the file's both ends, a BOM with
		// them
		s.Status = SentWhole
		if d.lead > 0 && !strings.HasPrefix(text, file[:d.lead]) {
			w.note(p + ": sent without the white space or BOM at its start")
		}
	case agent != Codex && agent != Gemini && d.claude != d.core && trimText(text) == d.claude:
		s.Status = SentWhole
		w.note(p + ": sent without its frontmatter or HTML comments, as Claude Code leaves them out")
	case strings.HasPrefix(file, text):
		cut(len(text))
	case len(right) < len(file) && strings.HasPrefix(file, right):
		cut(len(right))
	default:
		if k, ok := cutInRune(file, text); ok {
			cut(k)
			w.note(fmt.Sprintf("%s: cut at byte %d, within a character, which the agent sent as U+FFFD", p, k))
			break
		}
		s.Status = SentChanged
	}
	return s
}

// cutInRune reports whether text is the first k bytes of file and U+FFFD
// in place of the character at k: the cut of an agent that reads the
// bytes it keeps as UTF-8, lossily (Codex).
func cutInRune(file, text string) (int, bool) {
	k := len(text) - len("\uFFFD")
	if k < 0 || !strings.HasSuffix(text, "\uFFFD") || k >= len(file) || file[k] < 0xC0 || !strings.HasPrefix(file, text[:k]) {
		return 0, false
	}
	return k, true
}

// kindOf returns the kind of a file the agent sent: memory for the
// agents' own memory, an instruction file otherwise.
func kindOf(desc string) Kind {
	if strings.Contains(desc, "memory") {
		return KindMemory
	}
	return KindInstruction
}

// work is what one attribution may do: steps count the bytes its
// searches and comparisons look at, against a budget (0: none); notes
// collects what it says about the files, once each.
type work struct {
	steps, budget int
	notes         []string
	noted         map[string]bool
}

func (w *work) add(n int) {
	if w != nil {
		w.steps += n
	}
}

// over reports whether the budget is spent.
func (w *work) over() bool { return w != nil && w.budget > 0 && w.steps > w.budget }

func (w *work) note(s string) {
	if w == nil || w.noted[s] {
		return
	}
	if w.noted == nil {
		w.noted = map[string]bool{}
	}
	w.noted[s] = true
	w.notes = append(w.notes, s)
}

// intervals is a set of disjoint spans [start, end): whether a span
// overlaps one of them is found in O(log² n), and a span is added in
// amortized O(log n), in sorted runs whose sizes at least double.
type intervals struct{ runs [][][2]int }

// overlaps reports whether [a, b) overlaps a span of the set.
func (s *intervals) overlaps(a, b int) bool {
	for _, r := range s.runs {
		i := sort.Search(len(r), func(i int) bool { return r[i][1] > a }) // the first that ends past a
		if i < len(r) && r[i][0] < b {
			return true
		}
	}
	return false
}

// add adds [a, b), which overlaps no span of the set.
func (s *intervals) add(a, b int) {
	if b <= a {
		return
	}
	run := [][2]int{{a, b}}
	for len(s.runs) > 0 && len(s.runs[len(s.runs)-1]) <= len(run) {
		last := s.runs[len(s.runs)-1]
		s.runs = s.runs[:len(s.runs)-1]
		merged := make([][2]int, 0, len(last)+len(run))
		i, j := 0, 0
		for i < len(last) || j < len(run) {
			if j == len(run) || i < len(last) && last[i][0] < run[j][0] {
				merged = append(merged, last[i])
				i++
			} else {
				merged = append(merged, run[j])
				j++
			}
		}
		run = merged
	}
	s.runs = append(s.runs, run)
}

// positions returns the offsets of every occurrence of sub in text, in
// order, the next searched past the end of the one before.
func positions(text, sub string, w *work) []int {
	var out []int
	for from := 0; from < len(text); {
		i := strings.Index(text[from:], sub)
		if i < 0 {
			w.add(len(text) - from)
			break
		}
		w.add(i + len(sub))
		out = append(out, from+i)
		from += i + len(sub)
	}
	return out
}

// find returns the files in text (decoded), sorted and disjoint: those
// the headers of agent name (of every agent, for "": another program),
// then the candidates found by their bytes. Each search counts its steps
// in w, and ends early once w is over its budget.
func (f *Files) find(agent Agent, text string, w *work) []span {
	if f == nil {
		return nil
	}
	var out []span
	var taken intervals // what the files found so far hold
	take := func(spans []span, start, end int) {
		out = append(out, spans...)
		taken.add(start, end)
	}
	if agent == Claude || agent == "" {
		for _, s := range f.claudeFiles(text, w) {
			take([]span{s}, s.start, s.end)
		}
	}
	if agent == Gemini || agent == "" {
		f.geminiFiles(text, w, &taken, take)
	}
	if agent == Codex || agent == "" {
		f.codexFiles(text, w, &taken, take)
	}
	// any agent: the candidates, by their bytes, where no header is
	for _, p := range f.candidates {
		if w.over() {
			break
		}
		d := f.get(p)
		if d.err != nil || len(d.core) < minSearched {
			continue
		}
		c := d.core
		for from := 0; from < len(text) && !w.over(); {
			i := strings.Index(text[from:], c)
			if i < 0 {
				w.add(len(text) - from)
				break
			}
			w.add(i + 2*len(c))
			a, z := from+i, from+i+len(c)
			// the whole file where its white space was sent too
			if lead := d.lead; a >= lead && text[a-lead:a] == d.s[:lead] {
				a -= lead
			}
			if len(text)-a >= len(d.s) && text[a:a+len(d.s)] == d.s {
				z = a + len(d.s)
			}
			if !taken.overlaps(a, z) {
				take([]span{{start: a, end: z, kind: KindInstruction, name: p, file: f.sent(agent, p, text[a:z], w)}}, a, z)
			}
			from = z
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// quoted returns the candidates whose text (white space at its ends
// aside) is in text: a file the agent quotes where it does not put its
// context (the prompt, a tool result).
func (f *Files) quoted(text string, w *work) []string {
	if f == nil {
		return nil
	}
	var out []string
	for _, p := range f.candidates {
		if w.over() {
			break
		}
		d := f.get(p)
		if d.err != nil || len(d.core) < minSearched {
			continue
		}
		w.add(len(text))
		if strings.Contains(text, d.core) {
			out = append(out, p)
		}
	}
	return out
}

// claudeFiles returns the files of Claude Code's headers in text: "Contents
// of PATH (DESCRIPTION):\n\n" (or "Contents of PATH:\n\n", the form of a
// file it loads later in the session), the file to the next header or the
// end of the reminder.
func (f *Files) claudeFiles(text string, w *work) []span {
	w.add(len(text))
	ms := claudeHeader.FindAllStringSubmatchIndex(text, -1)
	if len(ms) == 0 {
		return nil
	}
	ends := positions(text, "\n</system-reminder>", w)
	var out []span
	e := 0
	for i, m := range ms {
		if w.over() {
			break
		}
		start, end := m[1], len(text)
		if i+1 < len(ms) {
			end = ms[i+1][0]
		}
		for e < len(ends) && ends[e] < start {
			e++
		}
		if e < len(ends) && ends[e] < end {
			end = ends[e]
		}
		limit := end
		end = start + len(strings.TrimRight(text[start:end], "\n"))
		p := text[m[2]:m[3]]
		desc := ""
		if m[4] >= 0 {
			desc = text[m[4]:m[5]]
		}
		if d := f.get(p); d.err == nil && len(d.s) > end-start && start+len(d.s) <= limit {
			w.add(len(d.s))
			if text[start:start+len(d.s)] == d.s {
				end = start + len(d.s) // the file's own final line breaks
			}
		}
		out = append(out, span{start: start, end: end, kind: kindOf(desc), name: p, file: f.sent(Claude, p, text[start:end], w)})
	}
	return out
}

// geminiFiles finds Gemini CLI's blocks in text: "--- Context from: PATH
// ---\n" ... "\n--- End of Context from: PATH ---", each header paired
// with the first end of its path after it, the files it imports written
// into it (geminiBlock). A block that overlaps a file found before is that
// file's text.
func (f *Files) geminiFiles(text string, w *work, taken *intervals, take func([]span, int, int)) {
	w.add(len(text))
	hs := geminiHeader.FindAllStringSubmatchIndex(text, -1)
	if len(hs) == 0 {
		return
	}
	w.add(len(text))
	type end struct{ start, end int }
	ends := map[string][]end{}
	for _, m := range geminiFooter.FindAllStringSubmatchIndex(text, -1) {
		p := text[m[2]:m[3]]
		ends[p] = append(ends[p], end{m[0], m[1]})
	}
	next := map[string]int{}
	for _, m := range hs {
		if w.over() {
			return
		}
		p, start := text[m[2]:m[3]], m[1]
		list, k := ends[p], next[p]
		for k < len(list) && list[k].start < start {
			k++
		}
		next[p] = k
		if k == len(list) || taken.overlaps(m[0], list[k].end) { // a header in a file's text is the file's
			continue
		}
		take(f.geminiBlock(text, start, list[k].start, p, w), m[0], list[k].end)
	}
}

// codexFiles finds Codex's blocks in text: "# AGENTS.md instructions for
// DIR\n\n<INSTRUCTIONS>\n" ... "\n</INSTRUCTIONS>", the project documents
// of one directory joined (sequence).
func (f *Files) codexFiles(text string, w *work, taken *intervals, take func([]span, int, int)) {
	w.add(len(text))
	hs := codexHeader.FindAllStringSubmatchIndex(text, -1)
	if len(hs) == 0 {
		return
	}
	ends := positions(text, "\n</INSTRUCTIONS>", w)
	e := 0
	for _, m := range hs {
		if w.over() {
			return
		}
		start := m[1]
		for e < len(ends) && ends[e] < start {
			e++
		}
		if e == len(ends) || taken.overlaps(m[0], ends[e]) {
			continue
		}
		take(f.sequence(text, start, ends[e], text[m[2]:m[3]], w), m[0], ends[e])
	}
}

// sequence attributes a block of documents joined by blank lines (Codex's
// project documents of dir): from its start, each candidate file that the
// block continues with, whole or cut (the last may be cut by the agent's
// limit, within a character too); what no candidate explains is an
// instruction segment of its own. A file is looked for where the block
// is, before the line breaks that join it to the one before are skipped
// (its own first lines may be blank), and after them without its leading
// white space.
func (f *Files) sequence(text string, start, end int, dir string, w *work) []span {
	var out []span
	used := map[string]bool{}
	const sep = "--- project-doc ---\n" // between the user's document and the project's
	for at := start; at < end && !w.over(); {
		if strings.HasPrefix(text[at:end], sep) {
			out = append(out, span{start: at, end: at + len(sep), kind: KindReminder})
			at += len(sep)
			continue
		}
		best := f.docAt(text, at, end, used, text[at] != '\n', w)
		if best == nil {
			if text[at] == '\n' { // a line break between two documents
				at++
				continue
			}
			out = append(out, span{start: at, end: end, kind: KindInstruction, name: "AGENTS.md instructions for " + dir})
			break
		}
		used[best.name] = true
		best.file = f.sent(Codex, best.name, text[best.start:best.end], w)
		out = append(out, *best)
		at = best.end
	}
	return out
}

// docAt returns the candidate file (not used yet) that text[at:end]
// starts with: whole, whole up to white space at the end of the block, or
// cut; with trimmed, also the file without its leading white space.
func (f *Files) docAt(text string, at, end int, used map[string]bool, trimmed bool, w *work) *span {
	rest := text[at:end]
	for _, p := range f.candidates {
		if used[p] {
			continue
		}
		d := f.get(p)
		if d.err != nil || d.core == "" {
			continue
		}
		files := []string{d.s}
		if trimmed && d.lead > 0 {
			files = append(files, d.s[d.lead:])
		}
		for _, file := range files {
			right := strings.TrimRight(file, " \t\r\n")
			w.add(2*min(len(file), len(rest)) + len(file) - len(right))
			switch {
			case strings.HasPrefix(rest, file):
				return &span{start: at, end: at + len(file), kind: KindInstruction, name: p}
			case strings.HasPrefix(rest, right) && strings.TrimSpace(rest[len(right):]) == "":
				return &span{start: at, end: end, kind: KindInstruction, name: p}
			case len(rest) >= minSearched && strings.HasPrefix(file, rest):
				return &span{start: at, end: end, kind: KindInstruction, name: p} // cut
			}
			if _, ok := cutInRune(file, rest); ok && len(rest) >= minSearched {
				return &span{start: at, end: end, kind: KindInstruction, name: p} // cut within a character
			}
		}
	}
	return nil
}

// Gemini CLI writes a file's imports into it: "@REF" becomes
// "<!-- Imported from: REF -->\n" + the file + "\n<!-- End of import from:
// REF -->", or a note where it did not import.
var (
	geminiImportOpen  = regexp.MustCompile(`<!-- Imported from: ([^\n]+?) -->\n`)
	geminiImportClose = regexp.MustCompile(`\n<!-- End of import from: ([^\n]+?) -->`)
	geminiImportNote  = regexp.MustCompile(`<!-- (?:Import failed: ([^\n]+?) - [^\n]*?|File already processed: ([^\n]+?)) -->`)
)

// geminiBlock attributes Gemini CLI's text of the file at p, text[start:end],
// with the files it imports written into it: each file's own text is its
// own segment, the markers around imports are reminders, and each file is
// held against the disk as it was before Gemini CLI wrote the imports in
// ("@REF" in place of each). Each marker is found once, and an import's
// markers are paired on a stack: linear in the size of the block.
func (f *Files) geminiBlock(text string, start, end int, p string, w *work) []span {
	const (
		open = iota
		closing
		note
	)
	type marker struct {
		kind, start, end int
		ref              string
	}
	block := text[start:end]
	w.add(3 * len(block))
	var marks []marker
	for _, m := range geminiImportOpen.FindAllStringSubmatchIndex(block, -1) {
		marks = append(marks, marker{open, start + m[0], start + m[1], block[m[2]:m[3]]})
	}
	for _, m := range geminiImportClose.FindAllStringIndex(block, -1) {
		marks = append(marks, marker{kind: closing, start: start + m[0], end: start + m[1]})
	}
	for _, m := range geminiImportNote.FindAllStringSubmatchIndex(block, -1) {
		ref := ""
		if m[2] >= 0 {
			ref = block[m[2]:m[3]]
		} else {
			ref = block[m[4]:m[5]]
		}
		marks = append(marks, marker{note, start + m[0], start + m[1], ref})
	}
	sort.Slice(marks, func(i, j int) bool { return marks[i].start < marks[j].start })

	// a file being read: its own text, and what it was on disk
	type file struct {
		path string
		own  []span
		orig strings.Builder
	}
	var out []span
	stack := []*file{{path: p}}
	ownText := func(fl *file, a, z int) {
		if z > a {
			fl.own = append(fl.own, span{start: a, end: z})
			fl.orig.WriteString(text[a:z])
		}
	}
	done := func(fl *file) {
		sf := f.sent(Gemini, fl.path, fl.orig.String(), w)
		for _, o := range fl.own {
			o.kind, o.name, o.file = KindInstruction, fl.path, sf
			out = append(out, o)
		}
	}
	at := start
	for _, m := range marks {
		if m.start < at { // within a marker already read
			continue
		}
		top := stack[len(stack)-1]
		switch m.kind {
		case open:
			ownText(top, at, m.start)
			top.orig.WriteString("@" + m.ref)
			out = append(out, span{start: m.start, end: m.end, kind: KindReminder})
			stack = append(stack, &file{path: resolveImport(top.path, m.ref)})
		case closing:
			if len(stack) == 1 {
				continue // no import open: the file's own text
			}
			ownText(top, at, m.start)
			done(top)
			stack = stack[:len(stack)-1]
			out = append(out, span{start: m.start, end: m.end, kind: KindReminder})
		case note:
			ownText(top, at, m.start)
			top.orig.WriteString("@" + m.ref)
			out = append(out, span{start: m.start, end: m.end, kind: KindReminder})
		}
		at = m.end
	}
	// an import not closed holds the rest of the block
	ownText(stack[len(stack)-1], at, end)
	for i := len(stack) - 1; i >= 0; i-- {
		done(stack[i])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// resolveImport is the path an import ref of the file at from names.
func resolveImport(from, ref string) string {
	if filepath.IsAbs(ref) {
		return filepath.Clean(ref)
	}
	return filepath.Join(filepath.Dir(from), ref)
}
