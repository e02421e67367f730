package observe

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/measure"
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

// read returns the content of p, read once.
func (f *Files) read(p string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d, ok := f.data[p]; ok {
		return d.b, d.err
	}
	b, _, err := fileio.Read(p, maxFileBytes)
	f.data[p] = &fileData{b: b, err: err}
	return b, err
}

// Candidates returns the files looked for by their bytes.
func (f *Files) Candidates() []string {
	if f == nil {
		return nil
	}
	return append([]string(nil), f.candidates...)
}

// sent returns the record of a file the agent sent as text: whole, cut or
// changed against the file on disk at p.
func (f *Files) sent(p, text string) *SentFile {
	s := &SentFile{Path: p, SentBytes: len(text), SentHash: measure.Hash([]byte(text))}
	b, err := f.read(p)
	if err != nil {
		s.Status = SentUnread
		return s
	}
	file := string(b)
	s.FileBytes, s.FileHash = len(b), measure.Hash(b)
	switch {
	case text == file, strings.TrimRight(text, " \t\r\n") == strings.TrimRight(file, " \t\r\n"):
		s.Status = SentWhole
	case strings.HasPrefix(file, text), len(strings.TrimRight(text, " \t\r\n")) < len(file) && strings.HasPrefix(file, strings.TrimRight(text, " \t\r\n")):
		s.Status = SentCut
		n := len(text)
		if !strings.HasPrefix(file, text) {
			n = len(strings.TrimRight(text, " \t\r\n"))
		}
		s.CutAt = &n
	default:
		s.Status = SentChanged
	}
	return s
}

// kindOf returns the kind of a file the agent sent: memory for the
// agents' own memory, an instruction file otherwise.
func kindOf(desc string) Kind {
	if strings.Contains(desc, "memory") {
		return KindMemory
	}
	return KindInstruction
}

// find returns the files in text (decoded), sorted and disjoint: those
// the agents' headers name, then the candidates found by their bytes.
func (f *Files) find(agent Agent, text string) []span {
	if f == nil {
		return nil
	}
	var out []span
	covered := func(a, b int) bool {
		for _, s := range out {
			if a < s.end && s.start < b {
				return true
			}
		}
		return false
	}
	// Claude Code
	ms := claudeHeader.FindAllStringSubmatchIndex(text, -1)
	for i, m := range ms {
		start, end := m[1], len(text)
		if i+1 < len(ms) {
			end = ms[i+1][0]
		} else if j := strings.Index(text[start:], "\n</system-reminder>"); j >= 0 {
			end = start + j
		}
		limit := end
		end = start + len(strings.TrimRight(text[start:end], "\n"))
		p := text[m[2]:m[3]]
		if b, err := f.read(p); err == nil && start+len(b) <= limit && len(b) > end-start && strings.HasPrefix(text[start:], string(b)) {
			end = start + len(b) // the file's own final line breaks
		}
		out = append(out, span{start: start, end: end, kind: kindOf(text[m[4]:m[5]]), name: p, file: f.sent(p, text[start:end])})
	}
	// Gemini CLI
	for _, m := range geminiHeader.FindAllStringSubmatchIndex(text, -1) {
		p := text[m[2]:m[3]]
		start := m[1]
		closing := "\n--- End of Context from: " + p + " ---"
		j := strings.Index(text[start:], closing)
		if j < 0 || covered(m[0], start+j+len(closing)) { // a header in a file's text is the file's
			continue
		}
		out = append(out, f.geminiBlock(text, start, start+j, p)...)
	}
	// Codex: a block of the project documents of one directory, joined
	for _, m := range codexHeader.FindAllStringSubmatchIndex(text, -1) {
		start := m[1]
		j := strings.Index(text[start:], "\n</INSTRUCTIONS>")
		if j < 0 || covered(m[0], start+j) {
			continue
		}
		out = append(out, f.sequence(text, start, start+j, text[m[2]:m[3]])...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	// any agent: the candidates, by their bytes, where no header is
	for _, p := range f.candidates {
		b, err := f.read(p)
		if err != nil {
			continue
		}
		c := strings.TrimSpace(string(b))
		if len(c) < minSearched {
			continue
		}
		for from := 0; from < len(text); {
			i := strings.Index(text[from:], c)
			if i < 0 {
				break
			}
			a, z := from+i, from+i+len(c)
			// the whole file where its white space was sent too
			if lead := len(b) - len(strings.TrimLeft(string(b), " \t\r\n")); a >= lead && text[a-lead:a] == string(b[:lead]) {
				a -= lead
			}
			if strings.HasPrefix(text[a:], string(b)) {
				z = a + len(b)
			}
			if !covered(a, z) {
				out = append(out, span{start: a, end: z, kind: KindInstruction, name: p, file: f.sent(p, text[a:z])})
			}
			from = z
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// sequence attributes a block of documents joined by blank lines (Codex's
// project documents of dir): from its start, each candidate file that the
// block continues with, whole or cut (the last may be cut by the agent's
// limit); what no candidate explains is an instruction segment of its
// own.
func (f *Files) sequence(text string, start, end int, dir string) []span {
	var out []span
	used := map[string]bool{}
	at := start
	for at < end {
		for at < end && text[at] == '\n' {
			at++
		}
		// Codex puts this line between the user's document and the
		// project's
		if sep := "--- project-doc ---\n"; strings.HasPrefix(text[at:end], sep) {
			out = append(out, span{start: at, end: at + len(sep), kind: KindReminder})
			at += len(sep)
			continue
		}
		if at >= end {
			break
		}
		rest := text[at:end]
		var best *span
		for _, p := range f.candidates {
			if used[p] { // each file is in the block once
				continue
			}
			b, err := f.read(p)
			if err != nil || len(strings.TrimSpace(string(b))) == 0 {
				continue
			}
			file := string(b)
			switch {
			case strings.HasPrefix(rest, file):
				best = &span{start: at, end: at + len(file), kind: KindInstruction, name: p}
			case strings.HasPrefix(rest, strings.TrimRight(file, " \t\r\n")) && strings.TrimSpace(rest[len(strings.TrimRight(file, " \t\r\n")):]) == "":
				best = &span{start: at, end: end, kind: KindInstruction, name: p}
			case strings.HasPrefix(file, rest) && len(rest) >= minSearched:
				best = &span{start: at, end: end, kind: KindInstruction, name: p} // cut
			default:
				continue
			}
			break
		}
		if best == nil {
			out = append(out, span{start: at, end: end, kind: KindInstruction, name: "AGENTS.md instructions for " + dir})
			break
		}
		used[best.name] = true
		best.file = f.sent(best.name, text[best.start:best.end])
		out = append(out, *best)
		at = best.end
	}
	return out
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
// ("@REF" in place of each).
func (f *Files) geminiBlock(text string, start, end int, p string) []span {
	var out []span
	var parse func(at, limit int, path string) (int, int) // returns the close marker's span, or limit, limit
	parse = func(at, limit int, path string) (int, int) {
		sf := &SentFile{Path: path}
		var orig strings.Builder
		var own []span
		closeAt, closeEnd := limit, limit
		for at < limit {
			rest := text[at:limit]
			o := geminiImportOpen.FindStringSubmatchIndex(rest)
			c := geminiImportClose.FindStringIndex(rest)
			n := geminiImportNote.FindStringSubmatchIndex(rest)
			first := func(m []int) int {
				if m == nil {
					return len(rest) + 1
				}
				return m[0]
			}
			switch k := min(first(o), first(c), first(n)); {
			case k > len(rest):
				own = append(own, span{start: at, end: limit})
				orig.WriteString(rest)
				at = limit
			case c != nil && k == c[0]:
				own = append(own, span{start: at, end: at + c[0]})
				orig.WriteString(rest[:c[0]])
				closeAt, closeEnd = at+c[0], at+c[1]
				at = limit
			case o != nil && k == o[0]:
				own = append(own, span{start: at, end: at + o[0]})
				ref := rest[o[2]:o[3]]
				orig.WriteString(rest[:o[0]] + "@" + ref)
				out = append(out, span{start: at + o[0], end: at + o[1], kind: KindReminder})
				ca, ce := parse(at+o[1], limit, resolveImport(path, ref))
				if ca < ce {
					out = append(out, span{start: ca, end: ce, kind: KindReminder})
				}
				at = ce
			default:
				own = append(own, span{start: at, end: at + n[0]})
				var ref string
				if n[2] >= 0 {
					ref = rest[n[2]:n[3]]
				} else {
					ref = rest[n[4]:n[5]]
				}
				orig.WriteString(rest[:n[0]] + "@" + ref)
				out = append(out, span{start: at + n[0], end: at + n[1], kind: KindReminder})
				at += n[1]
			}
		}
		*sf = *f.sent(path, orig.String())
		for _, o := range own {
			if o.end > o.start {
				o.kind, o.name, o.file = KindInstruction, path, sf
				out = append(out, o)
			}
		}
		return closeAt, closeEnd
	}
	parse(start, end, p)
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
