package aggregate

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/internal/table"
	"github.com/ctxaudit/ctx/measure"
)

// SummaryLargest is how many of the largest files a [Summary] names.
const SummaryLargest = 5

// summaryIgnored is how many ignored paths [Summary.Write] names before
// counting the rest.
const summaryIgnored = 10

// Summary counts what a run put into the document, for people: the
// command prints it on stderr at the end of every run ([Summary.Write]).
type Summary struct {
	// Files are the files with a block in the document (errors aside).
	Files int `json:"files"`
	// Tokens are those of the whole document, counted with Estimator (its
	// --estimator name).
	Tokens    int    `json:"tokens"`
	Estimator string `json:"estimator"`
	// Degraded and Omitted count what the token budget did; Budget names
	// the limits ("max_tokens 4000"), "" without one.
	Degraded int    `json:"degraded"`
	Omitted  int    `json:"omitted"`
	Budget   string `json:"budget,omitempty"`
	// Unlisted counts the omitted files that the document counts without
	// naming them: the room max_tokens left did not hold their names.
	Unlisted int `json:"unlisted,omitempty"`
	// Errors, Binary and Excluded (auto_aggregate = false) count the other
	// items (Errors also the screenshots that could not be resolved or
	// read); Screenshots the screenshots linked.
	Errors      int `json:"errors"`
	Binary      int `json:"binary"`
	Excluded    int `json:"excluded"`
	Screenshots int `json:"screenshots"`
	// Largest are the SummaryLargest largest blocks by tokens, largest
	// first (on a tie, the earlier file).
	Largest []SummaryFile `json:"largest"`
	// Ignored counts what the default ignore list left out
	// (Result.Ignored).
	Ignored int `json:"ignored"`
	// Changed is the change filter's revision ("" for the uncommitted
	// changes); nil without a filter.
	Changed *string `json:"changed,omitempty"`

	ignored []IgnoredPath
}

// SummaryFile is one of the largest files of a [Summary].
type SummaryFile struct {
	Path   string `json:"path"`
	Tokens int    `json:"tokens"`
}

// estimatorFlag returns the --estimator name of est, else its Name.
func estimatorFlag(est measure.Estimator) string {
	for _, n := range measure.EstimatorNames() {
		if e, err := measure.ParseEstimator(n); err == nil && e.Name() == est.Name() {
			return n
		}
	}
	return est.Name()
}

func summarize(o Options, res *Result) Summary {
	est := o.Estimator
	if est == nil { // a Result not made by Run
		est = measure.Default()
	}
	tokens := res.tokens
	if res.opts.Estimator == nil {
		tokens = est.Tokens([]byte(res.Markdown))
	}
	s := Summary{
		Tokens:    tokens,
		Estimator: estimatorFlag(est),
		Ignored:   len(res.Ignored),
		ignored:   res.Ignored,
		Largest:   []SummaryFile{},
	}
	var limits []string
	if o.MaxTokens.IsSet() {
		limits = append(limits, fmt.Sprintf("%s %s", reasonTotal, o.MaxTokens))
	}
	if o.MaxFileTokens.IsSet() {
		limits = append(limits, fmt.Sprintf("%s %s", reasonFileCap, o.MaxFileTokens))
	}
	s.Budget = strings.Join(limits, ", ")
	if o.Changed != nil {
		ref := o.Changed.Ref
		s.Changed = &ref
	}
	var blocks []SummaryFile
	for i := range res.Items {
		it := &res.Items[i]
		switch it.RowStatus() {
		case StatusError:
			s.Errors++
			continue
		case StatusExcluded:
			s.Excluded++
			continue
		case StatusOmitted:
			s.Omitted++
			if it.unlisted {
				s.Unlisted++
			}
			continue
		case StatusBinary:
			s.Binary++
		case StatusDegraded:
			s.Degraded++
		}
		s.Files++
		blocks = append(blocks, SummaryFile{Path: it.Path, Tokens: it.Emitted.Tokens})
	}
	for _, sh := range res.Screenshots {
		if sh.Status == StatusError {
			s.Errors++
		} else {
			s.Screenshots++
		}
	}
	sort.SliceStable(blocks, func(i, j int) bool { return blocks[i].Tokens > blocks[j].Tokens })
	s.Largest = append(s.Largest, blocks[:min(len(blocks), SummaryLargest)]...)
	return s
}

// SummaryWidth is the width of [Summary.Write]: what fits a terminal
// whose width is unknown, as the tables.
const SummaryWidth = table.DefaultWidth

// Write writes the summary for people, one "ctx: " line each, wrapped at
// SummaryWidth columns ([Summary.WriteFitted]):
//
//	ctx: 12 files, 3,456 tokens (chars4)
//	ctx: token budget max_tokens 3000: 2 degraded, 1 omitted (listed in the document)
//	ctx: token budget max_tokens 1000: 0 degraded, 950 omitted (40 listed in the document, the other 910 counted)
//	ctx: 1 error, 1 binary file not inlined
//	ctx: largest: big.py 1,200, lib/util.go 800, ...
//	ctx: left out by the default ignores: .env, node_modules/ (...)
//
// Lines with nothing to say are left out.
func (s Summary) Write(w io.Writer) error { return s.WriteFitted(w, 0) }

// WriteFitted is [Summary.Write] with lines of at most width columns (0 or
// less: SummaryWidth): a longer line goes on, after a space break, on lines
// that start "ctx:   " (a name longer than a line is never broken).
func (s Summary) WriteFitted(w io.Writer, width int) error {
	if width <= 0 {
		width = SummaryWidth
	}
	var b strings.Builder
	line := func(format string, args ...any) {
		b.WriteString(wrapPrefixed(fmt.Sprintf(format, args...), "ctx: ", "ctx:   ", width))
	}
	first := fmt.Sprintf("%s, %s (%s)", display.Plural(s.Files, "file"), display.Plural(s.Tokens, "token"), s.Estimator)
	if s.Changed != nil {
		against := "uncommitted"
		if *s.Changed != "" {
			against = "against " + *s.Changed
		}
		first = fmt.Sprintf("%s changed (%s), %s (%s)", display.Plural(s.Files, "file"), against, display.Plural(s.Tokens, "token"), s.Estimator)
	}
	if s.Screenshots > 0 {
		first += ", " + display.Plural(s.Screenshots, "screenshot")
	}
	line("%s", first)
	if s.Budget != "" {
		msg := fmt.Sprintf("token budget %s: %s degraded, %s omitted", s.Budget, display.Int(s.Degraded), display.Int(s.Omitted))
		switch {
		case s.Omitted > 0 && s.Unlisted == s.Omitted:
			msg += " (counted in the document: their names did not fit)"
		case s.Unlisted > 0:
			msg += fmt.Sprintf(" (%s listed in the document, the other %s counted)", display.Int(s.Omitted-s.Unlisted), display.Int(s.Unlisted))
		case s.Omitted > 0:
			msg += " (listed in the document)"
		}
		line("%s", msg)
	}
	var other []string
	if s.Errors > 0 {
		other = append(other, display.Plural(s.Errors, "error"))
	}
	if s.Binary > 0 {
		other = append(other, display.Plural(s.Binary, "binary file")+" not inlined")
	}
	if s.Excluded > 0 {
		other = append(other, fmt.Sprintf("%d excluded by auto_aggregate = false", s.Excluded))
	}
	if len(other) > 0 {
		line("%s", strings.Join(other, ", "))
	}
	if len(s.Largest) > 1 {
		// a name and its tokens stay on one line
		units := []string{"largest:"}
		for i, f := range s.Largest {
			u := mdtext.Escape(f.Path) + "\u00a0" + display.Int(f.Tokens)
			if i < len(s.Largest)-1 {
				u += ","
			}
			units = append(units, u)
		}
		b.WriteString(strings.ReplaceAll(wrapPrefixed(strings.Join(units, " "), "ctx: ", "ctx:   ", width), "\u00a0", " "))
	}
	if l := LeftOut(s.ignored); l != "" {
		line("%s", l)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// wrapPrefixed wraps text at spaces (not at no-break spaces) into lines of
// at most width columns, the first starting with first and the others with
// next, each ending with a newline; a word longer than a line stays whole.
func wrapPrefixed(text, first, next string, width int) string {
	var b strings.Builder
	line, n := first, 0
	for _, word := range strings.Split(text, " ") {
		if word == "" {
			continue
		}
		if n > 0 && table.Width(line)+1+table.Width(word) > width {
			b.WriteString(line + "\n")
			line, n = next, 0
		}
		if n > 0 {
			line += " "
		}
		line += word
		n++
	}
	b.WriteString(line + "\n")
	return b.String()
}

// LeftOut says what the default ignore list left out, "" when nothing:
// "left out by the default ignores: .env, node_modules/ (...)", at most
// summaryIgnored names, escaped: the line of the run summary.
func LeftOut(ignored []IgnoredPath) string {
	if len(ignored) == 0 {
		return ""
	}
	names := make([]string, len(ignored))
	for i, p := range ignored {
		names[i] = mdtext.Escape(p.Shown())
	}
	more := ""
	if len(names) > summaryIgnored {
		more = "--format json lists them all; "
	}
	return "left out by the default ignores: " + shownList(names, summaryIgnored) +
		" (" + more + "--no-default-ignores, or --ignore '!PATTERN', keeps them)"
}

// WriteLeftOut writes [LeftOut] for people as the run summary writes its
// lines: "ctx: " lines wrapped at width columns (0 or less:
// SummaryWidth); nothing when nothing was left out.
func WriteLeftOut(w io.Writer, ignored []IgnoredPath, width int) error {
	l := LeftOut(ignored)
	if l == "" {
		return nil
	}
	if width <= 0 {
		width = SummaryWidth
	}
	_, err := io.WriteString(w, wrapPrefixed(l, "ctx: ", "ctx:   ", width))
	return err
}
