// Package report writes a context's composition as one self-contained
// HTML page: a treemap of the tokens an agent is given (instruction
// sources, what the agent loads by itself, aggregated files by directory,
// screenshots, the Beads section and the chat history), the budgets
// and audit thresholds with what they cut, the instruction files' largest
// sections, the findings, and the manifest's identity.
//
// The page needs no network and runs no script: inline CSS and SVG made
// with html/template, tooltips from SVG titles, and a print style. Every
// name (paths, ids, headings) is data: escaped for HTML and with control
// characters shown as escapes. The same manifest and audit give the same
// bytes (no timestamps, coordinates with a fixed precision):
//
//	rep, err := audit.RunContext(ctx, m, audit.Options{Thresholds: th})
//	err = report.Write(ctx, f, m, rep, report.Options{})
package report

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/internal/version"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/observe"
	"github.com/ctxaudit/ctx/profile"
	"github.com/ctxaudit/ctx/render"
)

// Defaults of [Options].
const (
	DefaultHeadings = 20
	DefaultTopFiles = 20
	// DefaultFindings is how many findings of each severity are listed.
	DefaultFindings = 200
)

// Options configure [Write].
type Options struct {
	// Home is shown as ~ in paths and messages; "" is the process's home
	// directory.
	Home string
	// MinTileArea is the smallest tile of the 1000×560 treemap, in square
	// units, drawn on its own; smaller siblings merge into one "N more
	// files" tile, which keeps the page small for large projects. 0 is
	// [DefaultMinTileArea].
	MinTileArea float64
	// Headings is how many of the instruction files' sections are listed,
	// largest first; 0 is [DefaultHeadings].
	Headings int
	// TopFiles is how many aggregated files are listed, largest first; 0
	// is [DefaultTopFiles].
	TopFiles int
	// Findings is how many findings of each severity are listed, in the
	// audit's order; the rest are counted in a line that points to ctx
	// audit, so that a project with thousands of file findings still
	// gives a small page. 0 is [DefaultFindings].
	Findings int
	// ReadFile, when set, reads a file the agent loads by itself (a native
	// source), given its path as the manifest records it, so that its
	// sections are listed with those of the text ctx sends: with a
	// profile, AGENTS.md or CLAUDE.md is often such a file. Only what the
	// agent keeps of it counts (the profile's loaded_bytes), and only when
	// its BLAKE3 is still the manifest's source_hash; a file that changed
	// or cannot be read is named in a note. nil reads nothing.
	ReadFile func(path string) ([]byte, error)
}

// SourceReader is the usual [Options.ReadFile]: it reads a source file
// as the manifest's build does (regular UTF-8 files of a bounded size,
// never a FIFO or a device), a path of a relative manifest resolved
// against the project directory dir and home.
func SourceReader(dir, home string) func(path string) ([]byte, error) {
	return func(path string) ([]byte, error) {
		st, b := manifest.ReadSource(manifest.ResolvePath(path, dir, home), 0)
		if b == nil {
			return nil, fmt.Errorf("%s: %s", path, st)
		}
		return b, nil
	}
}

func (o Options) home() string {
	if o.Home != "" {
		return o.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

//go:embed page.html
var pageHTML string

var pageTemplate = template.Must(template.New("page.html").Parse(pageHTML))

// Write writes the report of m and its audit rep to w, in one Write call.
// rep must be the audit of m (audit.RunContext); nil audits m with the
// default thresholds and no secret scan (config.Project.AuditOptions
// scans as ctx report does). Tokens of the sections are counted with the
// manifest's estimator. It stops when ctx is done.
func Write(ctx context.Context, w io.Writer, m *manifest.Manifest, rep *audit.Report, o Options) error {
	if m == nil {
		return errors.New("report: no manifest")
	}
	if rep == nil {
		r, err := audit.RunContext(ctx, m, audit.Options{Thresholds: audit.DefaultThresholds()})
		if err != nil {
			return err
		}
		rep = r
	}
	if rep.Manifest != nil && rep.Manifest != m {
		return errors.New("report: the audit is of another manifest")
	}
	p, err := build(ctx, m, rep, o)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, p); err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}

// page is what the template shows.
type page struct {
	Agent       string
	Project     string
	Stats       []stat
	Map         *treemapView
	Budgets     []budgetView
	Limits      []bar
	Layers      []bar
	LayerNote   string
	Cuts        []cut
	CutsMore    []cut // past foldAt: folded under a summary
	Headings    []headingRow
	HeadNote    string
	Findings    []findingGroup
	Sources     []sourceRow
	SourcesMore []sourceRow // past foldAt: folded
	Files       []fileRow
	FilesNote   string
	Footer      []pair
}

type stat struct{ Value, Label string }

type pair struct{ Key, Value string }

type treemapView struct {
	W, H   int
	Tiles  []tile
	Groups []tile
	Legend []legendItem
	Label  string
}

type legendItem struct{ Kind, Label, Tokens string }

// bar is used vs allowed: Pct is the used share of the bar, at most 100.
type bar struct {
	Label, Used, Allowed, Pct, Note string
	Over, NoLimit                   bool
}

type budgetView struct {
	Name   string
	Limits string
	Bars   []bar
	Rows   []budgetRow
	Cut    string
}

type budgetRow struct{ ID, Use, Omitted, Decision string }

type cut struct{ What, Where, Detail string }

type headingRow struct {
	Source, Title, Tokens, Pct string
	Level, Line                int
}

type findingGroup struct {
	Severity string
	Count    int // the findings of the severity, listed or not
	Items    []findingItem
	More     string // "" or the line counting those not listed
}

type findingItem struct{ Source, Code, Related, Message string }

type sourceRow struct {
	ID, Kind, Delivery, Decision, Tokens, Budget, Path string
	Native, Included                                   bool
}

type fileRow struct{ Path, View, Status, Tokens, Source, Note string }

func build(ctx context.Context, m *manifest.Manifest, rep *audit.Report, o Options) (*page, error) {
	est := measure.Default()
	if m.Estimator != "" {
		e, err := measure.EstimatorNamed(m.Estimator)
		if err != nil {
			return nil, fmt.Errorf("the manifest's estimator: %w", err)
		}
		est = e
	}
	home := o.home()
	v := &viewer{m: m, rep: rep, home: home}
	p := &page{Agent: mdtext.Escape(m.Agent), Project: "project " + display.Path(m.ProjectDir, home)}
	if m.Paths == manifest.PathsRelative {
		p.Project += " (paths relative to it)"
	}
	p.Stats = v.stats()
	minArea := o.MinTileArea
	if minArea <= 0 {
		minArea = DefaultMinTileArea
	}
	var err error
	if p.Headings, p.HeadNote, err = v.headings(ctx, est, orDefault(o.Headings, DefaultHeadings), o.ReadFile); err != nil {
		return nil, err
	}
	p.Map = v.treemap(minArea)
	p.Budgets = v.budgets()
	p.Limits, p.Layers, p.LayerNote = v.limits()
	p.Cuts, p.CutsMore = fold(v.cuts())
	p.Findings = v.findings(orDefault(o.Findings, DefaultFindings))
	p.Sources, p.SourcesMore = fold(v.sources())
	p.Files, p.FilesNote = v.files(orDefault(o.TopFiles, DefaultTopFiles))
	footer, err := v.footer()
	if err != nil {
		return nil, err
	}
	p.Footer = footer
	return p, nil
}

// orDefault is n, or def when n is not positive.
func orDefault(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

// viewer turns a manifest and its audit into what people read.
type viewer struct {
	m    *manifest.Manifest
	rep  *audit.Report
	home string
	// sections are the sections of each source, by id, in their order
	// (headings computes them; the treemap draws them as the source's
	// tiles)
	sections map[string][]sectionTokens
}

// sectionTokens is a section of a source with its tokens.
type sectionTokens struct {
	title  string
	line   int
	tokens int
}

// foldAt is how many rows of a long list the page shows before the rest
// are folded under a summary (a <details>, no script).
const foldAt = 25

// fold splits a list at foldAt.
func fold[T any](list []T) (shown, folded []T) {
	if len(list) <= foldAt {
		return list, nil
	}
	return list[:foldAt], list[foldAt:]
}

func (v *viewer) id(id string) string { return display.ID(id, v.m.ProjectDir, v.home) }

func (v *viewer) path(p string) string {
	if p == "" {
		return "(text)"
	}
	return display.Rel(p, v.m.ProjectDir, v.home)
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func tokens(n int) string { return display.Plural(n, "token") }

// percent formats 100·used/allowed with a fixed precision, at most 100.
func percent(used, allowed float64) string {
	if allowed <= 0 {
		if used > 0 {
			return "100.0"
		}
		return "0.0"
	}
	return strconv.FormatFloat(min(100, 100*used/allowed), 'f', 1, 64)
}

// loaded reports what the agent itself loads of s: the tokens it keeps
// and the rule, when s is a native available to the agent in every
// session (as audit counts its native total).
func (v *viewer) loaded(s *manifest.Source) (int, *manifest.ProfileFile, bool) {
	if s.Delivery != discover.DeliveryNative || s.Status != manifest.StatusAvailable || !s.AudienceMatches {
		return 0, nil, false
	}
	if v.m.Profile != nil {
		for i := range v.m.Profile.Files {
			if f := &v.m.Profile.Files[i]; f.ID == s.ID {
				if f.Condition != "" {
					return 0, f, false
				}
				return f.LoadedTokens, f, true
			}
		}
	}
	return deref(s.SourceTokens), nil, true
}

func (v *viewer) stats() []stat {
	rep := v.rep
	included := 0
	for _, s := range v.m.Sources {
		if s.Included {
			included++
		}
	}
	var out []stat
	if o := rep.Observed; o != nil {
		// the headline is the real request
		out = append(out, stat{display.Int(o.Tokens), "tokens the agent sent in its turn (observed, " + mdtext.Escape(orAgent(o)) + ")"})
		if o.InputTokens != nil {
			out = append(out, stat{display.Int(*o.InputTokens), "input tokens the provider counted"})
		}
	}
	out = append(out, stat{display.Int(rep.Total.Tokens), "tokens sent by ctx"})
	if n := rep.Native; n.Files > 0 {
		out = append(out, stat{display.Int(n.Tokens), "tokens the agent loads itself (" + display.Plural(n.Files, "file") + ")"})
	}
	out = append(out, stat{display.Int(included) + " / " + display.Int(len(v.m.Sources)), "instruction sources sent"})
	if len(v.m.Files) > 0 {
		sent := 0
		for _, f := range v.m.Files {
			if f.EmittedBytes > 0 {
				sent++
			}
		}
		out = append(out, stat{display.Int(sent) + " / " + display.Int(len(v.m.Files)), "files and screenshots sent"})
	}
	counts := map[audit.Severity]int{}
	for _, f := range rep.Findings {
		counts[f.Severity]++
	}
	out = append(out, stat{display.Int(counts[audit.Error]) + " · " + display.Int(counts[audit.Warning]) + " · " + display.Int(counts[audit.Info]),
		"findings: errors · warnings · info"})
	return out
}

// decision says what was decided about s, for people.
func decision(s manifest.Source) string {
	switch {
	case s.Included && s.Truncated:
		return "included, cut"
	case s.Reason == manifest.ReasonNativeAutoload && s.Delivery == discover.DeliveryNative:
		return "loaded by the agent itself"
	}
	return string(s.Reason)
}

// omitted lists what a cut left out: "3,210 chars, 40 lines, 802 tokens".
func omitted(chars, lines int, toks *int) string {
	var parts []string
	if chars > 0 {
		parts = append(parts, display.Plural(chars, "char"))
	}
	if lines > 0 {
		parts = append(parts, display.Plural(lines, "line"))
	}
	if toks != nil && *toks > 0 {
		parts = append(parts, tokens(*toks))
	}
	return strings.Join(parts, ", ")
}

func (v *viewer) sources() []sourceRow {
	var out []sourceRow
	for _, s := range v.m.Sources {
		r := sourceRow{ID: v.id(s.ID), Kind: mdtext.Escape(s.Kind), Delivery: string(s.Delivery), Decision: decision(s),
			Path: v.path(s.Path), Included: s.Included, Native: s.Delivery == discover.DeliveryNative}
		r.Tokens = display.Int(deref(s.EmittedTokens)) + " / "
		if s.SourceTokens != nil {
			r.Tokens += display.Int(*s.SourceTokens)
		} else {
			r.Tokens += "-"
		}
		if s.Budget != "" {
			r.Budget = mdtext.Escape(s.Budget)
			if u := audit.BudgetUse(s); u != "" {
				r.Budget += " " + u
			}
		}
		out = append(out, r)
	}
	return out
}

func (v *viewer) findings(top int) []findingGroup {
	doc := audit.NewDocument(v.rep, audit.WriteOptions{Home: v.home})
	var out []findingGroup
	for _, sev := range []audit.Severity{audit.Error, audit.Warning, audit.Info} {
		g := findingGroup{Severity: string(sev)}
		for _, f := range doc.Findings {
			if f.Severity != sev {
				continue
			}
			if g.Count++; g.Count > top {
				continue
			}
			src := "total"
			if f.SourceID != "" {
				src = v.id(f.SourceID)
			}
			g.Items = append(g.Items, findingItem{Source: src, Code: string(f.Code), Related: mdtext.Escape(f.RelatedID), Message: mdtext.Escape(f.Message)})
		}
		if n := g.Count - len(g.Items); n > 0 {
			g.More = display.Int(n) + " more, not listed here: ctx audit lists every finding."
		}
		out = append(out, g)
	}
	return out
}

// fileView is the view of a file row, with the one asked for when it
// differs: "full → skeleton".
func fileView(r manifest.FileRow) string {
	if r.RequestedViewMode != "" && r.RequestedViewMode != r.ViewMode {
		return string(r.RequestedViewMode) + " → " + string(r.ViewMode)
	}
	return string(r.ViewMode)
}

// fileNote is the error, the budget's steps or the fallback of a row.
func fileNote(r manifest.FileRow) string {
	return mdtext.Escape(cmp.Or(r.Error, r.Degraded, r.Fallback))
}

func (v *viewer) files(top int) ([]fileRow, string) {
	if len(v.m.Files) == 0 {
		return nil, ""
	}
	idx := make([]int, len(v.m.Files))
	sent, toks := 0, 0
	for i, r := range v.m.Files {
		idx[i] = i
		if r.EmittedBytes > 0 {
			sent++
		}
		toks += r.EmittedTokens
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(v.m.Files[b].EmittedTokens, v.m.Files[a].EmittedTokens) })
	var out []fileRow
	for _, i := range idx[:min(top, len(idx))] {
		r := v.m.Files[i]
		src := "-"
		if r.SourceTokens != nil {
			src = display.Int(*r.SourceTokens)
		}
		path := mdtext.Escape(r.Path)
		if r.Kind != "" {
			path = string(r.Kind) + ": " + path
		}
		out = append(out, fileRow{Path: path, View: fileView(r), Status: string(r.Status), Tokens: display.Int(r.EmittedTokens), Source: src, Note: fileNote(r)})
	}
	note := display.Plural(len(v.m.Files), "file") + " recorded, " + display.Int(sent) + " sent, " + tokens(toks) + " in their blocks"
	if len(out) < len(v.m.Files) {
		note += "; the " + display.Int(len(out)) + " largest:"
	}
	return out, note
}

// cuts lists what budgets, limits and the agent itself left out.
func (v *viewer) cuts() []cut {
	var out []cut
	for _, s := range v.m.Sources {
		if !s.Truncated {
			continue
		}
		d := "cut"
		if s.Reason == manifest.ReasonBudgetExhausted {
			d = "left out (budget used up)"
		}
		if s.Budget != "" {
			d += " by budget " + mdtext.Escape(s.Budget)
		}
		if om := omitted(s.OmittedChars, s.OmittedLines, s.OmittedTokens); om != "" {
			d += ": " + om + " omitted"
		}
		out = append(out, cut{What: "source", Where: v.id(s.ID), Detail: d})
	}
	if p := v.m.Profile; p != nil {
		for _, f := range p.Files {
			if f.CutBytes > 0 {
				out = append(out, cut{What: "agent", Where: v.id(f.ID), Detail: "the agent itself drops " + display.Plural(f.CutBytes, "byte") + " (" + mdtext.Escape(f.Rule) + ")"})
			}
		}
	}
	for _, r := range v.m.Files {
		switch r.Status {
		case aggregate.StatusDegraded, aggregate.StatusOmitted:
			d := string(r.Status)
			if r.Degraded != "" {
				d += ": " + mdtext.Escape(r.Degraded)
			}
			d += "; " + tokens(r.EmittedTokens) + " sent"
			if r.SourceTokens != nil {
				d += " of " + display.Int(*r.SourceTokens)
			}
			out = append(out, cut{What: "file", Where: mdtext.Escape(r.Path), Detail: d})
		}
	}
	if h := v.m.History; h != nil && (h.MessagesOut < h.MessagesIn || h.TokensAfter < h.TokensBefore || h.Stubbed > 0) {
		d := display.Int(h.MessagesOut) + " of " + display.Plural(h.MessagesIn, "message") + " sent, " +
			display.Int(h.TokensAfter) + " of " + tokens(h.TokensBefore)
		type drop struct {
			reason string
			n      int
		}
		var drops []drop
		for r, n := range h.Dropped {
			if n > 0 {
				drops = append(drops, drop{string(r), n})
			}
		}
		slices.SortFunc(drops, func(a, b drop) int { return cmp.Compare(a.reason, b.reason) })
		var parts []string
		for _, x := range drops {
			parts = append(parts, display.Int(x.n)+" "+mdtext.Escape(x.reason))
		}
		if h.Stubbed > 0 {
			parts = append(parts, display.Int(h.Stubbed)+" tool results stubbed")
		}
		if len(parts) > 0 {
			d += "; dropped: " + strings.Join(parts, ", ")
		}
		out = append(out, cut{What: "history", Where: mdtext.Escape(h.File), Detail: d})
	}
	return out
}

func (v *viewer) budgets() []budgetView {
	var out []budgetView
	for _, b := range v.m.Budgets {
		bv := budgetView{Name: mdtext.Escape(b.Name)}
		var chars, lines, toks, omChars, omLines, omToks int
		anyTokens := false
		for _, s := range v.m.Sources {
			if s.Budget != b.Name {
				continue
			}
			chars += deref(s.EmittedChars)
			lines += deref(s.EmittedLines)
			toks += deref(s.EmittedTokens)
			omChars += s.OmittedChars
			omLines += s.OmittedLines
			if s.OmittedTokens != nil {
				anyTokens = true
				omToks += *s.OmittedTokens
			}
			om := omitted(s.OmittedChars, s.OmittedLines, s.OmittedTokens)
			if om == "" {
				om = "-"
			}
			bv.Rows = append(bv.Rows, budgetRow{ID: v.id(s.ID), Use: audit.BudgetUse(s), Omitted: om, Decision: decision(s)})
		}
		var limits []string
		for _, l := range []struct {
			name  string
			limit measure.Limit
			used  int
		}{{"lines", b.MaxLines, lines}, {"chars", b.MaxChars, chars}, {"tokens", b.MaxTokens, toks}} {
			n, ok := l.limit.Value()
			if !ok {
				continue
			}
			limits = append(limits, "max_"+l.name+" "+display.Int(int(n)))
			// red when the pool ran out and something was cut
			cut := omChars > 0 || omLines > 0 || omToks > 0
			bv.Bars = append(bv.Bars, bar{Label: l.name, Used: display.Int(l.used), Allowed: display.Int(int(n)),
				Pct: percent(float64(l.used), float64(n)), Over: cut && int64(l.used) >= n})
		}
		bv.Limits = strings.Join(limits, ", ")
		if bv.Limits == "" {
			bv.Limits = "no limit"
		}
		var omTokPtr *int
		if anyTokens {
			omTokPtr = &omToks
		}
		if om := omitted(omChars, omLines, omTokPtr); om != "" {
			bv.Cut = om + " omitted"
		}
		out = append(out, bv)
	}
	return out
}

// limits are the audit thresholds: the total sent against total_tokens,
// and the largest sources against layer_tokens.
func (v *viewer) limits() (total []bar, layers []bar, note string) {
	th := v.rep.Thresholds
	t := v.rep.Total.Tokens
	total = append(total, thresholdBar("total sent (total_tokens)", t, th.TotalTokens))
	if n := v.rep.Native; n.Files > 0 {
		total = append(total, bar{Label: "loaded by the agent itself", Used: display.Int(n.Tokens), NoLimit: true,
			Note: "not counted in the total: the agent reads " + display.Plural(n.Files, "file") + " on its own"})
	}
	type src struct {
		id   string
		toks int
	}
	var srcs []src
	for _, s := range v.m.Sources {
		if s.SourceTokens != nil && *s.SourceTokens > 0 {
			srcs = append(srcs, src{s.ID, *s.SourceTokens})
		}
	}
	slices.SortStableFunc(srcs, func(a, b src) int { return cmp.Compare(b.toks, a.toks) })
	const most = 10
	for _, s := range srcs[:min(most, len(srcs))] {
		layers = append(layers, thresholdBar(v.id(s.id), s.toks, th.LayerTokens))
	}
	note = "tokens of each source (before budgets) against layer_tokens"
	if len(srcs) > most {
		note += "; the " + display.Int(most) + " largest of " + display.Int(len(srcs))
	}
	return total, layers, note
}

func thresholdBar(label string, used int, limit measure.Limit) bar {
	b := bar{Label: label, Used: display.Int(used)}
	n, ok := limit.Value()
	if !ok {
		b.NoLimit, b.Note = true, "no limit"
		return b
	}
	b.Allowed = display.Int(int(n))
	b.Pct = percent(float64(used), float64(n))
	b.Over = limit.Exceeded(int64(used))
	return b
}

// footer is the manifest's identity: tool, schema, estimator and the
// hashes that match a report to its manifest.
func (v *viewer) footer() ([]pair, error) {
	m := v.m
	data, err := manifest.Marshal(m)
	if err != nil {
		return nil, err
	}
	text := []byte(render.Text(m))
	paths := "absolute"
	if m.Paths != "" {
		paths = m.Paths
	}
	out := []pair{
		{"report", "ctx " + version.Version},
		{"manifest", mdtext.Escape(m.Tool.Name+" "+m.Tool.Version) + ", schema_version " + strconv.Itoa(m.SchemaVersion) + ", " + mdtext.Escape(paths) + " paths"},
		{"agent", mdtext.Escape(m.Agent)},
		{"estimator", mdtext.Escape(m.Estimator)},
		{"thresholds", "layer_tokens " + v.rep.Thresholds.LayerTokens.String() + ", total_tokens " + v.rep.Thresholds.TotalTokens.String()},
		{"manifest BLAKE3", measure.Hash(data)},
		{"rendered text BLAKE3", measure.Hash(text)},
		{"rendered text", display.Plural(len(text), "byte") + ", " + tokens(v.rep.Total.Tokens)},
	}
	for _, s := range m.Sections {
		out = append(out, pair{"section " + mdtext.Escape(string(s.ID)) + " BLAKE3", s.Hash})
	}
	return out, nil
}

// headings splits every included fragment, and what the agent keeps of
// each native file that read returns unchanged, at its headings and
// returns the largest sections by tokens.
func (v *viewer) headings(ctx context.Context, est measure.Estimator, top int, read func(string) ([]byte, error)) ([]headingRow, string, error) {
	type sec struct {
		section
		src    string
		order  int
		tokens int
	}
	var all []sec
	sent, native := 0, 0
	var unread []string
	for i := range v.m.Sources {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		s := &v.m.Sources[i]
		var text string
		switch n, f, ok := v.loaded(s); {
		case s.Included && i < len(v.m.Fragments) && v.m.Fragments[i].Text != "":
			text = v.m.Fragments[i].Text
			sent++
		case ok && n > 0 && read != nil && s.Path != "":
			t, why := nativeText(s, f, read, v.m.Profile)
			if why != "" {
				unread = append(unread, v.id(s.ID)+" ("+why+")")
				continue
			}
			text = t
			native++
		default:
			continue
		}
		for _, x := range splitSections(text) {
			n := est.Tokens([]byte(x.Text))
			all = append(all, sec{section: x, src: s.ID, order: i, tokens: n})
			if v.sections == nil {
				v.sections = map[string][]sectionTokens{}
			}
			title := mdtext.Escape(x.Title)
			if x.Level == 0 {
				title = "(before the first heading)"
			}
			v.sections[s.ID] = append(v.sections[s.ID], sectionTokens{title: title, line: x.Line, tokens: n})
		}
	}
	var notRead string
	if len(unread) > 0 {
		notRead = "not read: " + strings.Join(unread, ", ")
	}
	if len(all) == 0 {
		return nil, notRead, nil
	}
	slices.SortStableFunc(all, func(a, b sec) int {
		if c := cmp.Compare(b.tokens, a.tokens); c != 0 {
			return c
		}
		if c := cmp.Compare(a.order, b.order); c != 0 {
			return c
		}
		return cmp.Compare(a.Line, b.Line)
	})
	largest := max(all[0].tokens, 1)
	var out []headingRow
	for _, x := range all[:min(top, len(all))] {
		title := mdtext.Escape(x.Title)
		if x.Level == 0 {
			title = "(before the first heading)"
		}
		out = append(out, headingRow{Source: v.id(x.src), Title: title, Level: x.Level, Line: x.Line,
			Tokens: display.Int(x.tokens), Pct: percent(float64(x.tokens), float64(largest))})
	}
	var in []string
	if sent > 0 {
		in = append(in, display.Plural(sent, "instruction fragment")+" ctx sends")
	}
	if native > 0 {
		in = append(in, display.Plural(native, "file")+" the agent loads itself")
	}
	note := display.Plural(len(all), "section") + " in " + strings.Join(in, " and ") + ", split at their # headings"
	if notRead != "" {
		note += "; " + notRead
	}
	if len(out) < len(all) {
		note += "; the " + display.Int(len(out)) + " largest:"
	}
	return out, note, nil
}

// nativeText is what the agent keeps of the native source s (f is its
// profile row, if any), read with read; why says why there is none: the
// file cannot be read, or changed since the manifest was made.
func nativeText(s *manifest.Source, f *manifest.ProfileFile, read func(string) ([]byte, error), prof *manifest.Profile) (text, why string) {
	if s.SourceHash == nil {
		return "", "no hash recorded"
	}
	data, err := read(s.Path)
	switch {
	case err != nil:
		return "", "unreadable"
	case measure.Hash(data) != *s.SourceHash:
		return "", "changed since the manifest"
	}
	if prof != nil {
		// what the agent leaves out of the file (Claude Code's HTML
		// comments), then its cut
		data = profile.AgentText(profile.Name(prof.Name), data)
	}
	if f != nil && f.LoadedBytes >= 0 && f.LoadedBytes < len(data) {
		data = data[:f.LoadedBytes]
	}
	return string(data), ""
}

// treemap builds the tree of what is sent and lays it out.
func (v *viewer) treemap(minArea float64) *treemapView {
	root := &node{kind: kindGroup, noun: "part"}
	instr := &node{kind: kindGroup, label: "instructions", id: "instructions", tip: "instruction sources", noun: "source"}
	for i := range v.m.Sources {
		s := &v.m.Sources[i]
		if s.Included && deref(s.EmittedTokens) > 0 {
			tip := v.id(s.ID) + "\n" + v.path(s.Path) + "\n" + display.Int(deref(s.EmittedTokens)) + " of " + tokens(deref(s.SourceTokens)) + " sent\n" + decision(*s)
			if s.Budget != "" {
				tip += "\nbudget " + mdtext.Escape(s.Budget) + " " + audit.BudgetUse(*s)
			}
			instr.children = append(instr.children, v.withSections(&node{kind: kindSource, id: s.ID, label: v.id(s.ID), tip: tip, tokens: deref(s.EmittedTokens)}))
			continue
		}
		if n, f, ok := v.loaded(s); ok && n > 0 {
			tip := v.id(s.ID) + "\n" + v.path(s.Path) + "\n" + tokens(n) + ", loaded by the agent itself (not sent by ctx)"
			if f != nil && f.Rule != "" {
				tip += "\nrule: " + mdtext.Escape(f.Rule)
			}
			label := "native: " + path.Base(v.path(s.Path))
			instr.children = append(instr.children, v.withSections(&node{kind: kindNative, id: s.ID, label: label, tip: tip, tokens: n}))
		}
	}
	files := &node{kind: kindGroup, label: "files", id: "files/", tip: "aggregated files", noun: "file"}
	shots := &node{kind: kindGroup, label: "screenshots", id: "screenshots/", tip: "screenshots", noun: "screenshot"}
	dirs := map[string]*node{".": files, "/": files, "": files}
	var dirOf func(dir string) *node
	dirOf = func(dir string) *node {
		if n, ok := dirs[dir]; ok {
			return n
		}
		parent := dirOf(path.Dir(dir))
		n := &node{kind: kindGroup, id: dir + "/", label: mdtext.Escape(path.Base(dir)) + "/", tip: mdtext.Escape(dir) + "/", noun: "file", dir: true}
		parent.children = append(parent.children, n)
		dirs[dir] = n
		return n
	}
	for _, r := range v.m.Files {
		if r.EmittedTokens <= 0 {
			continue
		}
		tip := mdtext.Escape(r.Path) + "\n" + display.Int(r.EmittedTokens) + " tokens sent"
		if r.SourceTokens != nil {
			tip += " (" + display.Int(*r.SourceTokens) + " in the file)"
		}
		tip += "\nview " + fileView(r) + ", " + string(r.Status)
		if note := fileNote(r); note != "" {
			tip += "\n" + note
		}
		leaf := &node{id: r.Path, label: mdtext.Escape(path.Base(r.Path)), tip: tip, tokens: r.EmittedTokens}
		switch {
		case r.Kind == manifest.FileKindScreenshot:
			leaf.kind = kindScreenshot
			shots.children = append(shots.children, leaf)
			continue
		case r.ViewMode == aggregate.ViewFull:
			leaf.kind = kindFile
		default:
			leaf.kind = kindReduced
		}
		dir := path.Dir(r.Path)
		parent := dirOf(dir)
		parent.children = append(parent.children, leaf)
	}
	collapse(files)
	for _, g := range []*node{instr, files, shots} {
		if len(g.children) > 0 {
			root.children = append(root.children, g)
		}
	}
	for _, s := range v.m.Sections {
		switch s.ID {
		case manifest.SectionBeads:
			tip := "Beads section\n" + tokens(s.Tokens)
			if b := v.m.Beads; b != nil {
				tip += "\n" + mdtext.Escape(b.File) + ": " + display.Int(b.Completed) + " completed, " + display.Int(b.Active) + " active"
			}
			root.children = append(root.children, &node{kind: kindBeads, id: string(s.ID), label: "Beads", tip: tip, tokens: s.Tokens})
		case manifest.SectionHistory:
			tip := "chat history\n" + tokens(s.Tokens)
			if h := v.m.History; h != nil {
				tip += "\n" + mdtext.Escape(h.File) + ": " + display.Int(h.MessagesOut) + " of " + display.Plural(h.MessagesIn, "message")
			}
			root.children = append(root.children, &node{kind: kindHistory, id: string(s.ID), label: "chat history", tip: tip, tokens: s.Tokens})
		}
	}
	if o := v.rep.Observed; o != nil {
		// the rest of what the agent sent in its turn: the instruction
		// files are the tiles above
		agent := &node{kind: kindGroup, label: "sent by the agent", id: "observed/", tip: "what the agent itself sent in its turn (ctx observe)", noun: "part"}
		for _, p := range o.Parts {
			if p.Kind == observe.KindInstruction || p.Kind == observe.KindMemory || p.Tokens <= 0 {
				continue
			}
			label := observedLabel(p)
			agent.children = append(agent.children, &node{kind: kindAgent, id: "observed/" + string(p.Kind), label: label,
				tip: label + "\n" + tokens(p.Tokens) + ", " + display.Plural(p.Bytes, "byte") + "\nsent by " + mdtext.Escape(orAgent(o)), tokens: p.Tokens})
		}
		if len(agent.children) > 0 {
			root.children = append([]*node{agent}, root.children...)
		}
	}
	if root.total() <= 0 {
		return nil
	}
	t := &treemapView{W: mapWidth, H: mapHeight}
	layout(root, rect{0, 0, mapWidth, mapHeight}, minArea, 0, "", &t.Tiles, &t.Groups)
	// outer groups last, so that their outlines are drawn on top
	slices.SortStableFunc(t.Groups, func(a, b tile) int { return cmp.Compare(b.Depth, a.Depth) })
	merged := slices.ContainsFunc(t.Tiles, func(x tile) bool { return x.Kind == kindMore })
	t.Legend = legend(root, merged)
	t.Label = "treemap of " + tokens(root.tokens) + ": area is tokens, colour is kind"
	return t
}

// withSections makes the sections of a source (split at its headings) its
// tiles, when it has two or more: the source is then a group of them, and
// one big instruction file shows where its tokens go.
func (v *viewer) withSections(n *node) *node {
	secs := v.sections[n.id]
	if len(secs) < 2 {
		return n
	}
	total := 0
	for _, s := range secs {
		total += s.tokens
	}
	if total <= 0 {
		return n
	}
	g := &node{kind: kindGroup, id: n.id, label: n.label, tip: n.tip, noun: "section"}
	given, seen := 0, 0
	for _, s := range secs {
		// the source's tokens shared by its sections' own counts, the
		// rounding given to the last, so that they add up to the source's
		seen += s.tokens
		t := n.tokens*seen/total - given
		given += t
		if t <= 0 {
			continue
		}
		g.children = append(g.children, &node{kind: n.kind, id: n.id, label: s.title,
			tip: n.label + "\n" + s.title + " (line " + strconv.Itoa(s.line) + ")\n" + tokens(t), tokens: t})
	}
	if len(g.children) < 2 {
		return n
	}
	return g
}

// collapse joins a directory whose only child is a directory with it
// ("a/" holding only "b/" is "a/b/").
func collapse(n *node) {
	for i, c := range n.children {
		for c.kind == kindGroup && len(c.children) == 1 && c.children[0].kind == kindGroup {
			only := c.children[0]
			only.label = c.label + only.label
			c = only
		}
		n.children[i] = c
		collapse(c)
	}
}

var kindLabels = []struct{ kind, label string }{
	{kindSource, "instruction sources ctx sends"},
	{kindNative, "loaded by the agent itself"},
	{kindFile, "files, full view"},
	{kindReduced, "files, cheaper view (summary, skeleton, outline, ...)"},
	{kindScreenshot, "screenshots"},
	{kindBeads, "Beads section"},
	{kindHistory, "chat history"},
	{kindAgent, "sent by the agent itself (observed)"},
	{kindMore, "small tiles merged"},
}

// observedLabel names a part of what the agent sent, with its count.
func observedLabel(p audit.ObservedPart) string {
	names := map[observe.Kind]string{observe.KindSystemPrompt: "system prompt", observe.KindTool: "tool schemas", observe.KindMCPTools: "MCP tool schemas",
		observe.KindSkills: "skills", observe.KindEnvironment: "environment", observe.KindReminder: "reminders", observe.KindPrompt: "prompt",
		observe.KindConversation: "conversation", observe.KindFraming: "JSON framing"}
	label := names[p.Kind]
	if label == "" {
		label = string(p.Kind)
	}
	if p.Kind == observe.KindTool || p.Kind == observe.KindMCPTools {
		label = display.Int(p.Count) + " " + label
	}
	return label
}

func orAgent(o *audit.Observed) string {
	if o.Client != "" {
		return o.Client
	}
	return o.Agent
}

// legend sums the leaves of the tree by kind (before merging); merged
// adds the kind of the merged tiles.
func legend(root *node, merged bool) []legendItem {
	sums := map[string]int{}
	counts := map[string]int{}
	var walk func(n *node)
	walk = func(n *node) {
		if len(n.children) == 0 {
			sums[n.kind] += n.tokens
			counts[n.kind]++
			return
		}
		for _, c := range n.children {
			walk(c)
		}
	}
	walk(root)
	var out []legendItem
	for _, k := range kindLabels {
		if k.kind == kindMore {
			if merged {
				out = append(out, legendItem{Kind: k.kind, Label: k.label})
			}
			continue
		}
		if counts[k.kind] > 0 {
			out = append(out, legendItem{Kind: k.kind, Label: k.label, Tokens: tokens(sums[k.kind])})
		}
	}
	return out
}
