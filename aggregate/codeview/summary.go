package codeview

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/ctxaudit/ctx/aggregate/engine"
	"github.com/ctxaudit/ctx/internal/decodelimit"
	"github.com/ctxaudit/ctx/internal/treesitter"
)

// maxListItems caps the names listed on one summary line.
const maxListItems = 40

// Summary returns the heuristic summary of a file, chosen by the extension of
// path: Python, TOML, Markdown, Go, C, C++, JavaScript, TypeScript, Rust and
// Java get a structural summary; any other file (or a file whose parse
// fails, for instance because ctx is done) gets the text summary. The
// formats are described in the package documentation.
func Summary(ctx context.Context, path string, src []byte) string {
	return summary(ctx, path, src, func(lang Language) (string, error) { return codeSummary(ctx, lang, src) })
}

// summary is Summary with code, the structural summary of src in a
// language.
func summary(ctx context.Context, path string, src []byte, code func(Language) (string, error)) string {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".toml":
		return tomlSummary(src)
	case ".md", ".markdown":
		return markdownSummary(src)
	}
	if lang, ok := Detect(path); ok {
		if s, err := code(lang); err == nil {
			return s
		}
	}
	return textSummary(ext, src)
}

func header(kind string, src []byte) string { return engine.SummaryHeader(kind, src) }

// listLine renders "label: a, b, c", at most maxListItems names followed by
// "… (+N more)", or "" when names is empty.
func listLine(label string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	more := ""
	if len(names) > maxListItems {
		more = fmt.Sprintf(", … (+%d more)", len(names)-maxListItems)
		names = names[:maxListItems]
	}
	return label + ": " + strings.Join(names, ", ") + more
}

// joinLines joins the non-empty lines with "\n".
func joinLines(lines ...string) string {
	var out []string
	for _, l := range lines {
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// uniq returns names without repeats, in first-seen order.
func uniq(names []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

func sortedUniq(names []string) []string {
	out := uniq(names)
	sort.Strings(out)
	return out
}

// Text.

// TextSummary is the summary of a file that has no structural summary
// (engine.TextSummary).
func TextSummary(path string, src []byte) string { return engine.TextSummary(path, src) }

func textSummary(ext string, src []byte) string { return engine.TextSummary("file"+ext, src) }

// Markdown.

var (
	mdATX       = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	mdFenceOpen = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	mdSetext    = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
)

func markdownSummary(src []byte) string {
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	var heads []string
	add := func(level int, text string) {
		if level <= 3 && text != "" {
			heads = append(heads, strings.Repeat("  ", level)+"- "+text)
		}
	}
	fence := ""
	prev := "" // previous line when it can be a setext heading's text
	start := 0
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		// YAML front matter.
		for i := 1; i < len(lines); i++ {
			if t := strings.TrimSpace(lines[i]); t == "---" || t == "..." {
				start = i + 1
				break
			}
		}
	}
	for _, l := range lines[start:] {
		if fence != "" {
			t := strings.TrimSpace(l)
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if m := mdFenceOpen.FindStringSubmatch(l); m != nil {
			fence = m[1]
			prev = ""
			continue
		}
		if m := mdATX.FindStringSubmatch(l); m != nil {
			add(len(m[1]), strings.TrimSpace(m[2]))
			prev = ""
			continue
		}
		if m := mdSetext.FindStringSubmatch(l); m != nil && prev != "" {
			level := 1
			if m[1][0] == '-' {
				level = 2
			}
			add(level, prev)
			prev = ""
			continue
		}
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") ||
			strings.HasPrefix(t, ">") || strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") ||
			strings.HasPrefix(t, "|") {
			prev = ""
		} else {
			prev = t
		}
	}
	h := header("Markdown", src)
	if len(heads) == 0 {
		return h
	}
	return h + "\nheadings:\n" + strings.Join(heads, "\n")
}

// TOML.

func tomlKey(it unstable.Iterator) string {
	var parts []string
	for it.Next() {
		parts = append(parts, tomlKeyPart(string(it.Node().Data)))
	}
	return strings.Join(parts, ".")
}

var tomlBare = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// tomlKeyPart renders one key part as TOML would: bare when it can be,
// otherwise quoted.
func tomlKeyPart(k string) string {
	if tomlBare.MatchString(k) {
		return k
	}
	return strconv.Quote(k)
}

func tomlSummary(src []byte) string {
	// a file nested too deep, or with more tables than its size can
	// hold, is not decoded (decoding makes a map of each table)
	if err := decodelimit.TOML(src, 0); err != nil {
		var le *decodelimit.Error
		line := 0
		if errors.As(err, &le) {
			line = le.Line
		}
		return joinLines(header("TOML", src), fmt.Sprintf("not decoded: line %d: %s", line, err))
	}
	var tables, keys []string
	p := unstable.Parser{}
	p.Reset(src)
	inTable := false
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			inTable = true
			tables = append(tables, "["+tomlKey(e.Key())+"]")
		case unstable.ArrayTable:
			inTable = true
			tables = append(tables, "[["+tomlKey(e.Key())+"]]")
		case unstable.KeyValue:
			if !inTable {
				keys = append(keys, tomlKey(e.Key()))
			}
		}
	}
	invalid := ""
	err := p.Error()
	if err == nil {
		var v map[string]any
		err = toml.Unmarshal(src, &v)
	}
	if err != nil {
		var perr *unstable.ParserError
		msg := err.Error()
		if pe, ok := err.(*unstable.ParserError); ok {
			perr = pe
			sh := p.Shape(p.Range(perr.Highlight))
			msg = fmt.Sprintf("line %d: %s", sh.Start.Line, perr.Message)
		}
		invalid = "invalid TOML: " + strings.SplitN(msg, "\n", 2)[0]
	}
	return joinLines(header("TOML", src), listLine("tables", uniq(tables)), listLine("top-level keys", uniq(keys)), invalid)
}

// Python.

var pyConstName = regexp.MustCompile(`^_*[A-Z][A-Z0-9_]*$`)

func pySummary(ctx context.Context, src []byte, root treesitter.Node) (string, error) {
	var imports []string
	// an import statement holds the word import: a subtree without one
	// (most function bodies) holds none, unless it has a parse error (the
	// parser may have made the keyword up)
	at := offsets(src, "import")
	err := treesitter.Walk(ctx, root, func(n treesitter.Node) bool {
		if i := sort.SearchInts(at, n.StartByte()); (i == len(at) || at[i]+len("import") > n.EndByte()) && !n.HasError() {
			return false
		}
		switch n.Type() {
		case "import_statement":
			for _, c := range n.FieldChildren("name") {
				if c.Type() == "aliased_import" {
					c = c.ChildByField("name")
				}
				imports = append(imports, strings.SplitN(c.Text(src), ".", 2)[0])
			}
			return false
		case "import_from_statement":
			m := n.ChildByField("module_name")
			t := strings.Join(strings.Fields(m.Text(src)), "")
			if m.Type() == "relative_import" {
				dots := len(t) - len(strings.TrimLeft(t, "."))
				rest := strings.SplitN(t[dots:], ".", 2)[0]
				imports = append(imports, t[:dots]+rest)
			} else if t != "" {
				imports = append(imports, strings.SplitN(t, ".", 2)[0])
			}
			return false
		case "future_import_statement":
			imports = append(imports, "__future__")
			return false
		}
		return true
	})
	if err != nil {
		return "", err
	}
	var consts, funcs, classes []string
	for _, c := range root.NamedChildren() {
		switch {
		case pyIsAssignment(c):
			for _, a := range c.NamedChildren() {
				if a.Type() != "assignment" {
					continue
				}
				left := a.ChildByField("left")
				targets := []treesitter.Node{left}
				if left.Type() == "pattern_list" || left.Type() == "tuple_pattern" {
					targets = left.NamedChildren()
				}
				for _, t := range targets {
					if t.Type() == "identifier" && pyConstName.MatchString(t.Text(src)) {
						consts = append(consts, t.Text(src))
					}
				}
			}
		case pyIsDef(c):
			d := pyDefinition(c)
			name := d.ChildByField("name").Text(src)
			if d.Type() == "function_definition" {
				funcs = append(funcs, name)
				continue
			}
			var methods []string
			for _, m := range d.ChildByField("body").NamedChildren() {
				if md := pyDefinition(m); md.Type() == "function_definition" {
					methods = append(methods, md.ChildByField("name").Text(src))
				}
			}
			line := listLine("class "+name, uniq(methods))
			if line == "" {
				line = "class " + name
			}
			classes = append(classes, line)
		}
	}
	lines := []string{header("Python", src), listLine("imports", sortedUniq(imports)), listLine("constants", uniq(consts))}
	lines = append(lines, classes...)
	lines = append(lines, listLine("functions", uniq(funcs)))
	return joinLines(lines...), nil
}

// Brace languages.

var langNames = map[Language]string{
	Python: "Python", C: "C", CPP: "C++", Go: "Go", JavaScript: "JavaScript",
	TypeScript: "TypeScript", TSX: "TSX", Rust: "Rust", Java: "Java",
}

func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return strings.Trim(s, "\"'`")
}

func codeSummary(ctx context.Context, lang Language, src []byte) (string, error) {
	p, err := parse(ctx, lang, src)
	if err != nil {
		return "", err
	}
	defer p.close()
	return p.codeSummary(ctx)
}

// codeSummary is the structural summary of the parsed file.
func (p *parsed) codeSummary(ctx context.Context) (string, error) {
	lang, src := p.lang, p.src
	root := p.tree.Root()
	if lang == Python {
		return pySummary(ctx, src, root)
	}
	var pkg string
	var imports []string
	importLabel := "imports"
	err := treesitter.Walk(ctx, root, func(n treesitter.Node) bool {
		switch lang {
		case Go:
			switch n.Type() {
			case "package_clause":
				for _, c := range n.NamedChildren() {
					pkg = c.Text(src)
				}
				return false
			case "import_spec":
				imports = append(imports, unquote(n.ChildByField("path").Text(src)))
				return false
			case "function_declaration", "method_declaration", "type_declaration", "const_declaration", "var_declaration":
				return false
			}
		case C, CPP:
			importLabel = "includes"
			switch n.Type() {
			case "preproc_include":
				imports = append(imports, n.ChildByField("path").Text(src))
				return false
			case "function_definition":
				return false
			}
		case JavaScript, TypeScript, TSX:
			switch n.Type() {
			case "import_statement", "export_statement":
				if s := n.ChildByField("source"); !s.IsNull() {
					imports = append(imports, unquote(s.Text(src)))
				}
			case "call_expression":
				f := n.ChildByField("function")
				args := n.ChildByField("arguments").NamedChildren()
				if (f.Text(src) == "require" || f.Type() == "import") && len(args) == 1 && args[0].Type() == "string" {
					imports = append(imports, unquote(args[0].Text(src)))
				}
			}
		case Rust:
			if n.Type() == "use_declaration" {
				imports = append(imports, strings.Join(strings.Fields(n.ChildByField("argument").Text(src)), " "))
				return false
			}
			if n.Type() == "function_item" {
				return false
			}
		case Java:
			switch n.Type() {
			case "package_declaration":
				for _, c := range n.NamedChildren() {
					if c.Type() != "annotation" && c.Type() != "marker_annotation" {
						pkg = c.Text(src)
					}
				}
				return false
			case "import_declaration":
				t := strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(n.Text(src), "import")), ";")
				imports = append(imports, strings.Join(strings.Fields(t), " "))
				return false
			case "class_body", "interface_body", "enum_body":
				return false
			}
		}
		return true
	})
	if err != nil {
		return "", err
	}
	// a symbol list cut by a limit still summarises the file
	ss, err := p.symbols(ctx)
	if err != nil && !errors.Is(err, ErrTruncated) {
		return "", err
	}
	groups := map[string][]string{}
	for _, s := range ss {
		var g string
		switch s.Kind {
		case "Namespace", "Module":
			g = "namespaces"
		case "Class", "Struct", "Union", "Enum", "Interface", "Trait", "Typedef", "Type", "Record":
			g = "types"
		case "Func", "Async Func":
			g = "functions"
		case "Method", "Async Method":
			g = "methods"
		case "Const":
			g = "constants"
		case "Var":
			g = "variables"
		case "Macro":
			g = "macros"
		default:
			continue
		}
		groups[g] = append(groups[g], s.Path)
	}
	pkgLine := ""
	if pkg != "" {
		pkgLine = "package: " + pkg
	}
	return joinLines(
		header(langNames[lang], src),
		pkgLine,
		listLine(importLabel, sortedUniq(imports)),
		listLine("namespaces", uniq(groups["namespaces"])),
		listLine("types", uniq(groups["types"])),
		listLine("functions", uniq(groups["functions"])),
		listLine("methods", uniq(groups["methods"])),
		listLine("constants", uniq(groups["constants"])),
		listLine("variables", uniq(groups["variables"])),
		listLine("macros", uniq(groups["macros"])),
	), nil
}

// offsets returns the offsets of word in src, in order.
func offsets(src []byte, word string) []int {
	var out []int
	for i := 0; ; {
		j := bytes.Index(src[i:], []byte(word))
		if j < 0 {
			return out
		}
		out = append(out, i+j)
		i += j + len(word)
	}
}
