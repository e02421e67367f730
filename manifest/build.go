package manifest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/beads"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/internal/version"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/profile"
	"github.com/ctxaudit/ctx/secrets"
)

// DefaultMaxSourceBytes bounds how much of one source file is read. A larger
// file is recorded as unreadable rather than read into memory.
const DefaultMaxSourceBytes = 64 << 20

// Options are the inputs of [Build]. The zero value of every field has the
// meaning the ctx command gives it: discovery defaults from the process
// (see discover.Options), no budgets, the default estimator, no aggregated
// files and no history.
type Options struct {
	// Discover holds the agent, project directory and source inputs.
	Discover discover.Options
	// Budgets limit emitted text per source id or kind, in order.
	Budgets Budgets
	// Estimator counts tokens of the sources, the files and the history,
	// and the max_tokens budgets; nil uses measure.Default(). Its name is
	// the manifest's estimator. Files.Estimator and
	// History.Options.Estimator, when set, must have the same name (see
	// [Options.SetEstimator]).
	Estimator measure.Estimator
	// MaxSourceBytes bounds a source file's size, a safety cap: 0 (or
	// less) is DefaultMaxSourceBytes; it cannot be turned off.
	MaxSourceBytes int64
	// Files, when not nil, aggregates project files after the sources (see
	// [Build]); nil aggregates none.
	Files *aggregate.Options
	// Beads, when not nil, reads the Beads store and adds the Beads section
	// after the files (execution_mode = "beads"); nil adds none. Files.Beads
	// is not used: the section is the manifest's own.
	Beads *beads.Options
	// History, when not nil, builds the chat history last; nil builds
	// none.
	History *HistoryOptions
	// Profile, when set, adds what that agent loads by itself as natives
	// (package profile) and records it in Manifest.Profile; "" adds none,
	// as the original does: nothing is inferred from the agent's name.
	Profile profile.Name
	// ProfileOptions configure the profile; Dir, Home and Getenv default
	// to the project directory and Discover's home and environment.
	ProfileOptions profile.Options
	// RelativePaths records the paths relative to the project directory,
	// with the home directory (Discover.Home, else the process's) as ~:
	// see [Relativize].
	RelativePaths bool
	// Redact replaces every credential found in the text that is sent
	// with "[REDACTED:rule]": in each included source before its budget
	// cuts it (so that a cut never leaves part of a secret), in each
	// aggregated file before its view is made, and in the history's
	// messages and attachments. Manifest.Redactions records each one with
	// the hashes before and after. It needs Scanner.
	Redact bool
	// Scanner finds the credentials Redact replaces (config gives
	// secrets/gitleaks' with the project's allowlist); Build fails when
	// Redact is set without one. manifest links no scanner of its own.
	Scanner secrets.Scanner
	// ConfiguredSources lists the ids of the shared and workspace sources
	// whose location the project's configuration file gave (shared_path,
	// workspace_dir), rather than the user (flags, the environment) or the
	// defaults; recorded as Manifest.ConfiguredSources, so that the audit
	// reports them when they lie outside the project, as it does every
	// other source a repository names.
	ConfiguredSources []string
	// AllowOutside lists the directories outside the project directory
	// whose files may be aggregated, and hold the history file and the
	// attachments ("/" allows every one). Without it such a file is an
	// error item and such a history or attachments directory an error:
	// a repository's ctx.toml must not pull host files into the context.
	// Instruction sources outside the project are read, and the audit
	// reports them (outside_project).
	AllowOutside []string
}

// SetEstimator makes est count every token of the manifest: it sets
// Estimator, and the estimators of Files and History when they are
// present.
func (o *Options) SetEstimator(est measure.Estimator) {
	o.Estimator = est
	if o.Files != nil {
		f := *o.Files
		f.Estimator = est
		o.Files = &f
	}
	if o.History != nil {
		h := *o.History
		h.Options.Estimator = est
		o.History = &h
	}
}

// EstimatorError says that a stage was given another estimator than the
// manifest's: one manifest counts every token with one estimator.
type EstimatorError struct {
	// Stage is "files" or "history".
	Stage string
	// Got and Manifest are the estimators' names.
	Got, Manifest string
}

// Error names the stage and both estimators.
func (e *EstimatorError) Error() string {
	return fmt.Sprintf("%s: tokens counted with %q, but the manifest counts with %q (one estimator for every count: Options.SetEstimator)", e.Stage, e.Got, e.Manifest)
}

// BudgetError is an invalid budget.
type BudgetError struct {
	Name string
	Msg  string
	// Where is where the budget was declared, when known ("ctx.toml:12").
	Where string
}

func (e *BudgetError) Error() string {
	msg := fmt.Sprintf("budgets.%s: %s", e.Name, e.Msg)
	if e.Where != "" {
		msg = e.Where + ": " + msg
	}
	return msg
}

// Build returns the whole manifest of a context, exactly as `ctx manifest`
// writes it. It never changes a file.
//
//  1. The instruction sources: discovered (discover.Sources), read, decided
//     (natives, audiences, duplicates, fallbacks) and cut by the budgets;
//     their fragments come first in the rendered text.
//  2. With Options.Files: the project files aggregated in their views
//     (aggregate.Run, without writing a numbered output file or adding a
//     history), one [FileRow] per file and screenshot, and the files
//     section, byte for byte what `ctx aggregate --stdout --no-history`
//     prints.
//  3. With Options.Beads: the Beads store read by beads.Read,
//     recorded as [Beads], and the Beads section.
//  4. With Options.History: the chat history built by history.Build,
//     recorded as [History], and its section last, so that everything
//     before it is a stable prefix.
//  5. With Options.RelativePaths: the paths rewritten by [Relativize].
//
// Every size is counted with Options.Estimator, and token budgets too. To
// do what `ctx manifest` does for a project, take the options from its
// configuration:
//
//	p, err := config.LoadProject(config.ProjectOptions{Dir: dir})
//	m, err := manifest.Build(ctx, p.ManifestOptions())
func Build(ctx context.Context, opts Options) (*Manifest, error) {
	est := opts.Estimator
	if est == nil {
		est = measure.Default()
	}
	if opts.Files != nil && opts.Files.Estimator != nil && opts.Files.Estimator.Name() != est.Name() {
		return nil, &EstimatorError{Stage: "files", Got: opts.Files.Estimator.Name(), Manifest: est.Name()}
	}
	if opts.History != nil && opts.History.Options.Estimator != nil && opts.History.Options.Estimator.Name() != est.Name() {
		return nil, &EstimatorError{Stage: "history", Got: opts.History.Options.Estimator.Name(), Manifest: est.Name()}
	}
	var sc secrets.Scanner
	if opts.Redact {
		if sc = opts.Scanner; sc == nil {
			return nil, errors.New("manifest: Redact needs a Scanner (gitleaks.New, or config's)")
		}
	}
	m, err := buildSources(ctx, opts, sc)
	if err != nil {
		return nil, err
	}
	if opts.Files != nil {
		f := *opts.Files
		f.Redact = sc
		f.AllowOutside = append(f.AllowOutside, opts.AllowOutside...)
		if err := addFiles(ctx, m, f, est); err != nil {
			return nil, err
		}
	}
	if opts.Beads != nil {
		if err := addBeads(m, *opts.Beads, est, opts.AllowOutside, sc); err != nil {
			return nil, err
		}
	}
	if opts.History != nil {
		h := *opts.History
		h.Options.Redact = sc
		h.AllowOutside = append(h.AllowOutside, opts.AllowOutside...)
		if err := addHistory(ctx, m, h, est); err != nil {
			return nil, err
		}
	}
	if opts.RelativePaths {
		home := opts.Discover.Home
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		return Relativize(m, home)
	}
	return m, nil
}

// buildSources is step 1 of Build: the instruction sources alone, redacted
// by sc when it is not nil.
func buildSources(ctx context.Context, opts Options, sc secrets.Scanner) (*Manifest, error) {
	disc, chain, err := Discover(ctx, opts)
	if err != nil {
		return nil, err
	}
	est := opts.Estimator
	if est == nil {
		est = measure.Default()
	}
	if err := checkBudgets(opts.Budgets, disc.Sources); err != nil {
		return nil, err
	}
	max := opts.MaxSourceBytes
	if max <= 0 {
		max = DefaultMaxSourceBytes
	}
	rows := make([]row, len(disc.Sources))
	var canon discover.Canonicals
	for i, c := range disc.Sources {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rows[i] = read(c, max, &canon)
		if r := &rows[i]; r.measured {
			// each text is measured and hashed once, here
			r.size, r.sum = measure.Measure(r.raw, est), measure.Sum(r.raw)
		}
	}
	m := &Manifest{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: "ctx", Version: version.Version},
		Agent:         disc.Agent,
		ProjectDir:    disc.ProjectDir,
		Estimator:     est.Name(),
		Budgets:       append(Budgets{}, opts.Budgets...),
	}
	if m.Budgets == nil {
		m.Budgets = Budgets{}
	}
	decide(rows, disc.Agent, shadowedBy(chain, rows))
	for _, id := range opts.ConfiguredSources {
		for i := range rows {
			if rows[i].c.ID == id {
				m.ConfiguredSources = append(m.ConfiguredSources, id)
				break
			}
		}
	}
	if sc != nil {
		for i := range rows {
			red, err := redactRow(ctx, sc, &rows[i], disc.ProjectDir)
			if err != nil {
				return nil, err
			}
			if red != nil {
				m.Redactions = append(m.Redactions, *red)
			}
		}
	}
	applyBudgets(rows, opts.Budgets, est)
	for i := range rows {
		if rows[i].c.Implicit {
			m.ImplicitSources = append(m.ImplicitSources, rows[i].c.ID)
		}
		m.Sources = append(m.Sources, rows[i].source(est))
		if rows[i].cause != "" {
			if m.readErrors == nil {
				m.readErrors = map[string]string{}
			}
			m.readErrors[rows[i].c.ID] = rows[i].cause
		}
		m.Fragments = append(m.Fragments, Fragment{ID: rows[i].c.ID, Text: string(rows[i].emitted)})
	}
	if m.Sources == nil {
		m.Sources = []Source{}
	}
	if m.Fragments == nil {
		m.Fragments = Fragments{}
	}
	if chain != nil {
		m.Profile = profileRecord(chain, rows, est)
	}
	return m, nil
}

func checkBudgets(bs Budgets, srcs []discover.Candidate) error {
	names := map[string]bool{}
	for _, c := range srcs {
		names[c.ID] = true
		names[c.Kind] = true
	}
	seen := map[string]bool{}
	for _, b := range bs {
		fail := func(msg string) error { return &BudgetError{Name: b.Name, Msg: msg, Where: b.Where} }
		if seen[b.Name] {
			return fail("defined twice")
		}
		seen[b.Name] = true
		if !names[b.Name] {
			return fail("matches no source id or kind")
		}
		if b.MaxChars.Negative() {
			return fail("max_chars must be nonnegative")
		}
		if b.MaxLines.Negative() {
			return fail("max_lines must be nonnegative")
		}
		if b.MaxTokens.Negative() {
			return fail("max_tokens must be nonnegative")
		}
	}
	return nil
}

// row is a source while decisions are made.
type row struct {
	c         discover.Candidate
	canonical string
	status    Status
	cause     string         // why an unreadable source could not be read
	raw       []byte         // the bytes read (also for empty and invalid UTF-8 files)
	hasBytes  bool           // raw can establish equality (available or empty)
	measured  bool           // sizes are known (available or empty)
	size      measure.Sizes  // of raw, when measured
	sum       measure.Digest // of raw, when hasBytes

	included    bool
	accepted    bool // reached the included decision (a budget may still cut it)
	reason      Reason
	duplicateOf string
	equivTo     string
	equivalence Reason
	audienceOK  bool

	emitted      []byte
	truncated    bool
	budget       string
	maxChars     measure.Limit
	maxLines     measure.Limit
	omittedChars int
	omittedLines int
	// tokenBudget: the row's budget has max_tokens (maxTokens is then set)
	tokenBudget bool
	maxTokens   measure.Limit
	// redacted is the text after redaction, nil when nothing was replaced
	redacted []byte
	// emittedSize is the size of emitted once a budget has measured it
	// (emittedSized)
	emittedSize  measure.Sizes
	emittedSized bool
}

// read reads the source of c; canon makes its path canonical.
func read(c discover.Candidate, max int64, canon *discover.Canonicals) row {
	r := row{c: c}
	if c.IsText() {
		r.raw = []byte(*c.Text)
		r.hasBytes = true
		r.measured = true
		r.status = textStatus(r.raw)
		return r
	}
	r.canonical = canon.Canonical(c.Path)
	r.status, r.raw, r.cause = readSource(c.Path, max)
	r.hasBytes = r.raw != nil
	r.measured = r.hasBytes
	return r
}

// ReadSource reads the source file at path as [Build] does and returns its
// status and, when it is available or empty, its bytes (never nil then):
// missing when there is no such file (also when a parent is not a
// directory); unreadable for a directory, a FIFO, device or socket (which
// could block or never end), a read error, a file larger than maxBytes or
// bytes that are not UTF-8; empty when it has only space, tab, CR and LF.
// maxBytes <= 0 uses DefaultMaxSourceBytes.
func ReadSource(path string, maxBytes int64) (Status, []byte) {
	st, b, _ := readSource(path, maxBytes)
	return st, b
}

// readSource is [ReadSource], and for an unreadable file why, in a few
// words ([Manifest.ReadError]).
func readSource(path string, maxBytes int64) (Status, []byte, string) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxSourceBytes
	}
	b, _, err := fileio.Read(path, maxBytes)
	switch {
	case err != nil && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)):
		return StatusMissing, nil, ""
	case err != nil:
		return StatusUnreadable, nil, readCause(err)
	case !utf8.Valid(b):
		return StatusUnreadable, nil, "not UTF-8"
	}
	if b == nil {
		b = []byte{}
	}
	return textStatus(b), b, ""
}

// readCause says why fileio.Read failed: "permission denied", "is a
// directory", "not a regular file", "larger than N bytes".
func readCause(err error) string {
	d := fileio.Describe(err)
	if cause, ok := strings.CutPrefix(d, "cannot read: "); ok {
		return cause
	}
	return d
}

func textStatus(b []byte) Status {
	if discover.Blank(string(b)) {
		return StatusEmpty
	}
	return StatusAvailable
}

func sameContent(a, b *row) bool {
	return a.hasBytes && b.hasBytes && bytes.Equal(a.raw, b.raw)
}

// rowIndex finds among rows, added in order, the first with the same path
// as a row (both files, with the same canonical path; a missing file is not
// canonicalised, text sources have none), else the first with the same
// content (both with bytes, available or empty): what comparing the row
// with each of them in turn finds, by two maps, so that deciding n sources
// takes time in n rather than n².
type rowIndex struct {
	rows      []*row
	byPath    map[string]*row         // the first row of each canonical path
	byContent map[measure.Digest]*row // the first row of each content (its BLAKE3)
	probes    int                     // rows looked at, for the test that deciding is linear
}

func newRowIndex() *rowIndex {
	return &rowIndex{byPath: map[string]*row{}, byContent: map[measure.Digest]*row{}}
}

// add appends r to the rows searched.
func (x *rowIndex) add(r *row) {
	x.rows = append(x.rows, r)
	if !r.c.IsText() && r.canonical != "" {
		if _, ok := x.byPath[r.canonical]; !ok {
			x.byPath[r.canonical] = r
		}
	}
	if r.hasBytes {
		if _, ok := x.byContent[r.sum]; !ok {
			x.byContent[r.sum] = r
		}
	}
}

// duplicate returns the first row added that has the same path as r, else
// the first with the same content.
func (x *rowIndex) duplicate(r *row) (*row, Reason) {
	x.probes++
	if !r.c.IsText() && r.canonical != "" {
		if o, ok := x.byPath[r.canonical]; ok {
			return o, ReasonSamePath
		}
	}
	if !r.hasBytes {
		return nil, ""
	}
	o, ok := x.byContent[r.sum]
	if !ok {
		return nil, ""
	}
	if sameContent(r, o) {
		return o, ReasonSameContent
	}
	// two contents with one BLAKE3 digest: compare the bytes themselves
	for _, o := range x.rows {
		x.probes++
		if sameContent(r, o) {
			return o, ReasonSameContent
		}
	}
	return nil, ""
}

func audienceMatches(aud []string, agent string) bool {
	for _, a := range aud {
		if a == "*" || a == agent {
			return true
		}
	}
	return false
}

// decide makes the decision of every row; shadowed maps the canonical
// path of a file the agent deliberately skips to the native that takes its
// place. It returns the number of rows it looked at to find duplicates
// (for the test that this grows with the rows, not their square).
func decide(rows []row, agent string, shadowed map[string]string) int {
	natives := newRowIndex()
	agentsAvailable := false
	for i := range rows {
		r := &rows[i]
		r.audienceOK = audienceMatches(r.c.Audience, agent)
		if r.c.Delivery == discover.DeliveryNative && r.audienceOK {
			natives.add(r)
		}
		if r.c.ID == discover.IDProjectAgents && r.status == StatusAvailable {
			agentsAvailable = true
		}
	}
	earlier, accepted := newRowIndex(), newRowIndex()
	for i := range rows {
		r := &rows[i]
		if o, how := earlier.duplicate(r); o != nil {
			r.equivTo, r.equivalence = o.c.ID, how
		}
		earlier.add(r)
		switch {
		case !r.audienceOK:
			r.reason = ReasonAudienceExcluded
		case r.c.Delivery == discover.DeliveryNative:
			r.reason = ReasonNativeAutoload
		default:
			if o, _ := natives.duplicate(r); o != nil {
				r.reason, r.duplicateOf = ReasonNativeAutoload, o.c.ID
				break
			}
			if r.status != StatusAvailable {
				r.reason = Reason(r.status)
				break
			}
			if by, ok := shadowed[r.canonical]; ok && !r.c.IsText() {
				r.reason, r.duplicateOf = ReasonShadowedByNative, by
				break
			}
			if o, how := accepted.duplicate(r); o != nil {
				r.reason, r.duplicateOf = how, o.c.ID
				break
			}
			if r.c.ID == discover.IDProjectClaude && agentsAvailable {
				r.reason = ReasonFallbackNotSelected
				break
			}
			r.reason = ReasonIncluded
			r.included = true
			r.accepted = true
			r.emitted = r.raw
			accepted.add(r)
		}
	}
	return natives.probes + earlier.probes + accepted.probes
}

// pool is what remains of a budget.
type pool struct {
	chars, lines, tokens measure.Limit
}

func applyBudgets(rows []row, bs Budgets, est measure.Estimator) {
	pools := map[string]*pool{}
	for _, b := range bs {
		pools[b.Name] = &pool{chars: b.MaxChars, lines: b.MaxLines, tokens: b.MaxTokens}
	}
	for i := range rows {
		r := &rows[i]
		if !r.accepted {
			continue
		}
		name := ""
		if _, ok := pools[r.c.ID]; ok {
			name = r.c.ID
		} else if _, ok := pools[r.c.Kind]; ok {
			name = r.c.Kind
		}
		if name == "" {
			continue
		}
		p := pools[name]
		r.budget = name
		r.maxChars, r.maxLines = p.chars, p.lines
		r.tokenBudget, r.maxTokens = p.tokens.IsSet(), p.tokens
		// the text to send: the file's bytes, or what redaction left of them
		full := r.emitted
		out := Cut(full, p.chars, p.lines)
		if r.tokenBudget {
			out = CutTokens(out, p.tokens, est)
		}
		r.emitted = out
		r.truncated = len(out) != len(full) // a cut is a prefix
		before := r.size
		if r.redacted != nil {
			before = measure.Measure(full, est)
		}
		after := before
		if r.truncated {
			after = measure.Measure(out, est)
		}
		r.emittedSize, r.emittedSized = after, true
		r.omittedChars = before.Chars - after.Chars
		r.omittedLines = before.Lines - after.Lines
		p.chars = p.chars.Minus(int64(after.Chars))
		p.lines = p.lines.Minus(int64(after.Lines))
		if r.tokenBudget {
			p.tokens = p.tokens.Minus(int64(after.Tokens))
		}
		if len(out) == 0 {
			r.included = false
			r.reason = ReasonBudgetExhausted
		}
	}
}

// Cut applies a budget's remaining limits to text: nothing when either limit
// is 0; else up to and including the maxLines-th "\n" when the text has that
// many; then the first maxChars characters, never splitting a UTF-8
// character. The zero Limit is unlimited.
func Cut(text []byte, maxChars, maxLines measure.Limit) []byte {
	mc, charsSet := maxChars.Value()
	ml, linesSet := maxLines.Value()
	if (charsSet && mc <= 0) || (linesSet && ml <= 0) {
		return []byte{}
	}
	out := text
	if linesSet {
		n := int64(0)
		for i, c := range out {
			if c == '\n' {
				n++
				if n == ml {
					out = out[:i+1]
					break
				}
			}
		}
	}
	if charsSet {
		n := int64(0)
		for i := range string(out) {
			if n == mc {
				out = out[:i]
				break
			}
			n++
		}
	}
	return out
}

// CutTokens applies a budget's remaining max_tokens to text, after [Cut]:
// the longest prefix that est counts as at most maxTokens tokens and that
// ends on a character boundary and at a token boundary of est
// (measure.TokenPrefix): for ceiling(characters / 4) a multiple of 4
// characters, for the exact estimators a boundary between two of the
// text's tokens. Nothing when maxTokens is 0; the text as it is when
// maxTokens is unlimited (the zero Limit).
func CutTokens(text []byte, maxTokens measure.Limit, est measure.Estimator) []byte {
	n, ok := maxTokens.Value()
	if !ok {
		return text
	}
	if n <= 0 {
		return []byte{}
	}
	if n > math.MaxInt32 {
		n = math.MaxInt32 // no text of at most 64 MiB has more tokens
	}
	return text[:measure.TokenPrefix(est, text, int(n))]
}

func (r *row) source(est measure.Estimator) Source {
	s := Source{
		ID: r.c.ID, Kind: r.c.Kind, Order: r.c.Order,
		RequestedPath: r.c.RequestedPath, Path: r.c.Path, CanonicalPath: r.canonical,
		Audience: append([]string{}, r.c.Audience...), Delivery: r.c.Delivery,
		Origin: r.c.Origin, Scope: r.c.Scope, ConfigPath: r.c.ConfigPath, NativeEvidence: r.c.NativeEvidence,
		Status: r.status, Included: r.included, Reason: r.reason,
		DuplicateOf: r.duplicateOf, EquivalentTo: r.equivTo, Equivalence: r.equivalence,
		AudienceMatches: r.audienceOK, HashAlgorithm: measure.HashAlgorithm,
		Truncated: r.truncated, Budget: r.budget, MaxChars: r.maxChars, MaxLines: r.maxLines,
		OmittedChars: r.omittedChars, OmittedLines: r.omittedLines,
	}
	var h string
	if r.measured {
		z := r.size
		h = r.sum.String()
		s.SourceBytes, s.SourceChars, s.SourceLines, s.SourceTokens, s.SourceHash = &z.Bytes, &z.Chars, &z.Lines, &z.Tokens, &h
	}
	// every row has emitted sizes (0 when nothing was emitted); the emitted
	// hash only rows that reached the included decision. A row that sends
	// its text as it was read is not measured again.
	asRead := r.accepted && r.redacted == nil && !r.truncated
	var e measure.Sizes
	switch {
	case r.emittedSized:
		e = r.emittedSize
	case asRead:
		e = r.size
	default:
		e = measure.Measure(r.emitted, est)
	}
	s.EmittedBytes, s.EmittedChars, s.EmittedLines, s.EmittedTokens = &e.Bytes, &e.Chars, &e.Lines, &e.Tokens
	if r.accepted {
		eh := h
		if !asRead {
			eh = measure.Hash(r.emitted)
		}
		s.EmittedHash = &eh
	}
	if r.tokenBudget {
		// the token budget's fields, after the 36, only for its rows
		omitted := 0
		if s.SourceTokens != nil {
			omitted = max(*s.SourceTokens-e.Tokens, 0)
		}
		if r.redacted != nil {
			omitted = max(est.Tokens(r.redacted)-e.Tokens, 0)
		}
		s.MaxTokens, s.OmittedTokens = r.maxTokens, &omitted
	}
	return s
}
