package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/stats"
	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/config"
	"github.com/ctxaudit/ctx/internal/jsonenc"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/profile"
	"github.com/ctxaudit/ctx/provenance"
	"github.com/ctxaudit/ctx/render"
	"github.com/ctxaudit/ctx/secrets"
)

// DefaultManifest is the stored manifest verify reads when the call names
// none: the file that `ctx manifest --relative -o ctx.manifest.json`
// writes and the ctx-verify hook checks.
const DefaultManifest = "ctx.manifest.json"

// The views pack offers (the others need ctx.toml: a mask, slices).
var packViews = []any{string(aggregate.ViewFull), string(aggregate.ViewSkeleton), string(aggregate.ViewOutline), string(aggregate.ViewSummary)}

func (s *server) addTools(srv *mcp.Server) {
	addTool(srv, &mcp.Tool{Name: "audit", Title: "Audit the context",
		Description: "The instruction sources an agent is given in this project (AGENTS.md, CLAUDE.md, shared and configured files, " +
			"aggregated files): each one's decision, tokens and budget, the findings (oversized, cut, duplicate, missing, credentials) " +
			"and the total. The same JSON document as `ctx audit --format json`."},
		auditOutput, func(in *jsonschema.Schema) {
			enum(in, "profile", profileNames())
			enum(in, "estimator", estimatorNames())
			minimum(in, 0, "layer_tokens", "total_tokens", "max_bytes")
		}, s.audit)
	addTool(srv, &mcp.Tool{Name: "render", Title: "Render the context",
		Description: "The context text an agent is given here, as `ctx render` prints it (or a stored manifest's), cut at max_tokens " +
			"at a token boundary (default 20000; 0: all) with a note when cut. Credentials are replaced by [REDACTED:rule]; the notes say " +
			"where, and name any content from outside the project."},
		renderOutput, func(in *jsonschema.Schema) {
			enum(in, "profile", profileNames())
			enum(in, "estimator", estimatorNames())
			minimum(in, 0, "max_tokens")
		}, s.render)
	addTool(srv, &mcp.Tool{Name: "pack", Title: "Pack project files",
		Description: "Project files as one markdown document, each in a view (full, skeleton, outline, summary), under a token budget " +
			"that degrades the largest files full → skeleton → outline → summary → omitted and lists what it did, as " +
			"`ctx aggregate --stdout` does. Without paths: the files of ctx.toml, else the whole project (.gitignore and the default " +
			"ignores apply). Credentials are replaced by [REDACTED:rule]; the notes say where."},
		packOutput, func(in *jsonschema.Schema) {
			enum(in, "view", packViews)
			enum(in, "estimator", estimatorNames())
			minimum(in, 0, "max_tokens", "max_file_tokens")
		}, s.pack)
	addTool(srv, &mcp.Tool{Name: "verify", Title: "Verify a stored manifest",
		Description: "Re-reads every file a stored manifest records and reports each as unchanged, changed, missing or appeared, and " +
			"the sources and files that are new or removed; drifted counts the rows that changed. The same JSON as " +
			"`ctx verify --format json`."},
		verifyOutput, func(in *jsonschema.Schema) { minimum(in, 0, "max_bytes") }, s.verify)
	addTool(srv, &mcp.Tool{Name: "stats", Title: "Token statistics",
		Description: "Where the tokens are: lines, symbols, bytes and tokens per directory (totals of the subtree) and file, or only " +
			"the top N files, or the token tree. The same JSON as `ctx stats --format json`."},
		statsOutput, func(in *jsonschema.Schema) {
			enum(in, "sort", []any{string(stats.ByPath), string(stats.ByTokens)})
			enum(in, "estimator", estimatorNames())
			minimum(in, 1, "top")
			minimum(in, 0, "tree_threshold", "max_bytes")
		}, s.stats)
}

// enum sets the allowed values of property name.
func enum(s *jsonschema.Schema, name string, values []any) { s.Properties[name].Enum = values }

// minimum sets the lower bound of number properties.
func minimum(s *jsonschema.Schema, min float64, names ...string) {
	for _, n := range names {
		s.Properties[n].Minimum = ptr(min)
	}
}

func profileNames() []any {
	var out []any
	for _, n := range profile.Names() {
		out = append(out, string(n))
	}
	return out
}

func estimatorNames() []any {
	var out []any
	for _, n := range measure.EstimatorNames() {
		out = append(out, n)
	}
	return out
}

// estimator parses the estimator of a call; nil for "".
func estimator(name string) (measure.Estimator, error) {
	if name == "" {
		return nil, nil
	}
	est, err := measure.ParseEstimator(name)
	if err != nil {
		return nil, fmt.Errorf("estimator: %v", err)
	}
	return est, nil
}

// manifestOptions maps the options of a call onto the project's manifest
// options, as the commands map --estimator and --profile.
func (s *server) manifestOptions(p *config.Project, prof, est string) (manifest.Options, error) {
	e, err := estimator(est)
	if err != nil {
		return manifest.Options{}, err
	}
	o := p.ManifestOptions()
	s.withCache(&o)
	if e != nil {
		// every stage counts with it: sources, files, history and budgets
		o.SetEstimator(e)
	}
	if prof != "" {
		name, err := profile.Parse(prof)
		if err != nil {
			return o, fmt.Errorf("profile: %v", err)
		}
		o.Profile = name
	}
	return o, nil
}

type auditInput struct {
	Dir         string `json:"dir,omitempty" jsonschema:"a project directory inside this one, relative to it (default: this project)"`
	Profile     string `json:"profile,omitempty" jsonschema:"add what this agent loads by itself (default: profile in ctx.toml, else none)"`
	Estimator   string `json:"estimator,omitempty" jsonschema:"count tokens with chars4 (characters / 4), o200k or cl100k (default: ctx.toml, else chars4)"`
	LayerTokens *int64 `json:"layer_tokens,omitempty" jsonschema:"tokens above which a source is oversized, a whole number (default: [audit] of ctx.toml, else 8192)"`
	TotalTokens *int64 `json:"total_tokens,omitempty" jsonschema:"tokens above which the total is oversized, a whole number (default: [audit] of ctx.toml, else 32768)"`
	MaxBytes    *int   `json:"max_bytes,omitempty" jsonschema:"refuse a document larger than this many bytes (default, and 0: 100000; at most 8388608)"`
}

func (s *server) audit(ctx context.Context, _ *mcp.CallToolRequest, in auditInput) (*result, error) {
	p, err := s.project(in.Dir)
	if err != nil {
		return nil, err
	}
	o, err := s.manifestOptions(p, in.Profile, in.Estimator)
	if err != nil {
		return nil, err
	}
	m, err := manifest.Build(ctx, o)
	if err != nil {
		return nil, err
	}
	// the total is counted with the estimator the manifest names
	ao, err := p.AuditOptions()
	if err != nil {
		return nil, err
	}
	if in.LayerTokens != nil {
		ao.Thresholds.LayerTokens = measure.Max(*in.LayerTokens)
	}
	if in.TotalTokens != nil {
		ao.Thresholds.TotalTokens = measure.Max(*in.TotalTokens)
	}
	rep, err := audit.RunContext(ctx, m, ao)
	if err != nil {
		return nil, err
	}
	wo := audit.WriteOptions{Home: p.Home}
	if p.Config != nil {
		wo.Config = p.Config.File
	}
	var b bytes.Buffer
	if err := audit.Write(&b, rep, audit.FormatJSON, wo); err != nil {
		return nil, err
	}
	if err := checkSize("audit", b.Bytes(), maxBytes(in.MaxBytes), "audit a directory with fewer sources"); err != nil {
		return nil, err
	}
	return &result{text: []string{b.String()}, structured: b.Bytes()}, nil
}

// project loads the project of a call: the server's, or dir inside it
// (with its own ctx.toml).
func (s *server) project(dir string) (*config.Project, error) {
	if dir == "" {
		return s.load()
	}
	abs, err := s.confine("dir", s.dir, dir)
	if err != nil {
		return nil, err
	}
	file := ""
	if realPath(abs) == s.dir {
		file = s.o.Config
	}
	return s.loadAt(abs, file)
}

type renderInput struct {
	Manifest  string `json:"manifest,omitempty" jsonschema:"render this stored manifest file (relative to the project) instead of building the context now"`
	Profile   string `json:"profile,omitempty" jsonschema:"add what this agent loads by itself, so that it is not sent twice (default: profile in ctx.toml)"`
	Estimator string `json:"estimator,omitempty" jsonschema:"count tokens with chars4, o200k or cl100k (default: ctx.toml, else chars4; a stored manifest's own)"`
	Redact    *bool  `json:"redact,omitempty" jsonschema:"replace each credential with [REDACTED:rule] (default true; false only where the server was started with ctx mcp --allow-unredacted)"`
	MaxTokens *int   `json:"max_tokens,omitempty" jsonschema:"cut the text at this many tokens, at a token boundary (default 20000; 0: no limit, up to 1 MiB)"`
}

// renderResult is the structured output of render.
type renderResult struct {
	Text string `json:"text"`
	// Tokens are those of Text, TotalTokens those of the whole context.
	Tokens      int      `json:"tokens"`
	TotalTokens int      `json:"total_tokens"`
	Estimator   string   `json:"estimator"`
	Truncated   bool     `json:"truncated"`
	Notes       []string `json:"notes"`
}

// scanners returns the project's two scanners: the one of the findings
// in the notes, with its allowlist, and the one that redacts, without it
// (a repository cannot switch redaction off).
func scanners(p *config.Project) (findings, redact secrets.Scanner, err error) {
	if findings, err = p.Config.Scanner(); err != nil {
		return nil, nil, err
	}
	if redact, err = p.Config.RedactScanner(); err != nil {
		return nil, nil, err
	}
	return findings, redact, nil
}

func (s *server) render(ctx context.Context, _ *mcp.CallToolRequest, in renderInput) (*result, error) {
	redact, err := s.redacting(in.Redact)
	if err != nil {
		return nil, err
	}
	p, err := s.load()
	if err != nil {
		return nil, err
	}
	sc, rsc, err := scanners(p)
	if err != nil {
		return nil, err
	}
	var m *manifest.Manifest
	var text string
	var notes []string
	if in.Manifest != "" {
		if in.Profile != "" {
			return nil, fmt.Errorf("profile: applies when the context is built, not to a stored manifest")
		}
		path, err := s.confine("manifest", s.dir, in.Manifest)
		if err != nil {
			return nil, err
		}
		if m, err = storedManifest(path, in.Estimator); err != nil {
			return nil, err
		}
		if found, at := manifestRedactions(m); len(found) > 0 {
			notes = append(notes, "the stored manifest was redacted as it was built: "+redactedNote(found, at))
		}
		// a stored manifest is redacted as it is rendered, as ctx render
		// --manifest --redact does
		at, err := renderedSecrets(ctx, m, sc)
		if err != nil {
			return nil, err
		}
		if redact {
			var found []secrets.Finding
			if text, found, err = render.Redact(ctx, m, rsc); err != nil {
				return nil, err
			}
			notes = append(notes, redactedNote(found, at))
		} else {
			text = render.Text(m)
			notes = append(notes, unredactedNote(at))
		}
	} else {
		o, err := s.manifestOptions(p, in.Profile, in.Estimator)
		if err != nil {
			return nil, err
		}
		o.Redact, o.Scanner = redact, rsc
		if m, err = manifest.Build(ctx, o); err != nil {
			return nil, err
		}
		text = render.Text(m)
		if redact {
			notes = append(notes, redactedNote(manifestRedactions(m)))
		} else {
			at, err := renderedSecrets(ctx, m, sc)
			if err != nil {
				return nil, err
			}
			notes = append(notes, unredactedNote(at))
		}
	}
	if note := outsideNote(m, s.dir); note != "" {
		notes = append(notes, note)
	}
	est, err := countingEstimator(m)
	if err != nil {
		return nil, err
	}
	max := measure.Max(DefaultMaxTokens)
	if l, ok := tokenLimit(in.MaxTokens); ok {
		max = l
	}
	r := renderResult{Text: text, Estimator: est.Name()}
	r.TotalTokens = est.Tokens([]byte(text))
	r.Tokens = r.TotalTokens
	if max.Exceeded(int64(r.TotalTokens)) {
		r.Text = text[:measure.TokenPrefix(est, []byte(text), max.Int(0))]
		r.Tokens = est.Tokens([]byte(r.Text))
		r.Truncated = true
		notes = append(notes, fmt.Sprintf("cut at %d of %d tokens (%s), at a token boundary, by max_tokens %s: ask with a larger max_tokens, or 0 for the whole text",
			r.Tokens, r.TotalTokens, est.Name(), max))
	}
	if capped, note := capText(r.Text, "text"); note != "" {
		r.Text, r.Truncated = capped, true
		r.Tokens = est.Tokens([]byte(r.Text))
		notes = append(notes, note)
	}
	r.Notes = append([]string{}, notes...)
	return structured(r, r.Text, notes)
}

// storedManifest reads a manifest file; with an estimator, the manifest
// must have been counted with it (a stored manifest is never counted
// again), as ctx render --manifest says.
func storedManifest(path, est string) (*manifest.Manifest, error) {
	e, err := estimator(est)
	if err != nil {
		return nil, err
	}
	m, err := manifest.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if e != nil && m.Estimator != e.Name() {
		return nil, fmt.Errorf("%s: the manifest counts tokens with %q, not %q (estimator %s)", path, m.Estimator, e.Name(), est)
	}
	return m, nil
}

// countingEstimator is the estimator that counted m, which counts its text.
func countingEstimator(m *manifest.Manifest) (measure.Estimator, error) {
	if m.Estimator == "" {
		return measure.Default(), nil
	}
	return measure.EstimatorNamed(m.Estimator)
}

// structured returns v as the structured output, with text and the notes
// as the blocks for the model.
func structured(v any, text string, notes []string) (*result, error) {
	b, err := jsonenc.Compact(v)
	if err != nil {
		return nil, err
	}
	res := &result{text: []string{text}, structured: b}
	if len(notes) > 0 {
		res.text = append(res.text, "ctx: "+strings.Join(notes, "\nctx: "))
	}
	return res, nil
}

type packInput struct {
	Paths         []string `json:"paths,omitempty" jsonschema:"files, directories or globs (**) relative to the project (files.base_dir); default: [files] of ctx.toml, else the whole project"`
	View          string   `json:"view,omitempty" jsonschema:"the view of the paths given: full (default), skeleton (signatures, bodies elided), outline (one line per symbol) or summary"`
	MaxTokens     *int     `json:"max_tokens,omitempty" jsonschema:"token budget of all files together (default: max_tokens of [files], else 20000; 0: no budget)"`
	MaxFileTokens *int     `json:"max_file_tokens,omitempty" jsonschema:"token cap of each file (default: max_file_tokens of [files], else none; 0: none)"`
	Estimator     string   `json:"estimator,omitempty" jsonschema:"count tokens with chars4, o200k or cl100k (default: ctx.toml, else chars4)"`
	Redact        *bool    `json:"redact,omitempty" jsonschema:"replace each credential with [REDACTED:rule] (default true; false only where the server was started with ctx mcp --allow-unredacted)"`
}

// packItem is an item of `ctx aggregate --format json` without its text,
// which the markdown holds: the shallower Content field hides the item's
// and, empty, is left out.
type packItem struct {
	aggregate.Item
	Content string `json:"content,omitempty"`
}

// MarshalJSON writes the item as ctx aggregate --format json does (its
// "row_status" last), with "content" only when it is set.
func (p packItem) MarshalJSON() ([]byte, error) {
	type plain aggregate.Item // without Item's MarshalJSON
	return jsonenc.Compact(struct {
		plain
		Content   string           `json:"content,omitempty"`
		RowStatus aggregate.Status `json:"row_status"`
	}{plain(p.Item), p.Content, p.Item.RowStatus()})
}

// packResult is the structured output of pack.
type packResult struct {
	Markdown    string                  `json:"markdown"`
	Items       []packItem              `json:"items"`
	Screenshots []aggregate.Screenshot  `json:"screenshots"`
	Ignored     []aggregate.IgnoredPath `json:"ignored"`
	Summary     aggregate.Summary       `json:"summary"`
	Notes       []string                `json:"notes"`
}

func (s *server) pack(ctx context.Context, req *mcp.CallToolRequest, in packInput) (*result, error) {
	redact, err := s.redacting(in.Redact)
	if err != nil {
		return nil, err
	}
	p, err := s.load()
	if err != nil {
		return nil, err
	}
	o, err := s.aggregateOptions(p, in.Paths, in.View, in.Estimator)
	if err != nil {
		return nil, err
	}
	sc, rsc, err := scanners(p)
	if err != nil {
		return nil, err
	}
	// redacted (never with the repository's allowlist), or scanned for the
	// notes: never a credential without a word
	o.Redact, o.Scan = rsc, nil
	if !redact {
		o.Redact, o.Scan = nil, sc
	}
	var notes []string
	if l, ok := tokenLimit(in.MaxTokens); ok {
		o.MaxTokens = l
	} else if !o.MaxTokens.IsSet() {
		o.MaxTokens = measure.Max(DefaultMaxTokens)
		notes = append(notes, fmt.Sprintf("max_tokens is %d by default here (ctx.toml sets none); 0 is no budget", DefaultMaxTokens))
	}
	if l, ok := tokenLimit(in.MaxFileTokens); ok {
		o.MaxFileTokens = l
	}
	// never a numbered output file, nor the Discussion History
	o.OutputDir, o.History = "", ""
	o.Progress = progress(ctx, req)
	res, err := aggregate.Run(ctx, o)
	if err != nil {
		return nil, err
	}
	sum := res.Summary()
	var b strings.Builder
	if err := sum.Write(&b); err != nil {
		return nil, err
	}
	out := packResult{Markdown: res.Markdown + "\n", Items: []packItem{}, Screenshots: res.Screenshots, Ignored: res.Ignored, Summary: sum}
	for _, it := range res.Items {
		it.Content = ""
		out.Items = append(out.Items, packItem{Item: it})
	}
	if out.Screenshots == nil {
		out.Screenshots = []aggregate.Screenshot{}
	}
	if out.Ignored == nil {
		out.Ignored = []aggregate.IgnoredPath{}
	}
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		notes = append(notes, strings.TrimPrefix(line, "ctx: "))
	}
	if redact {
		notes = append(notes, redactedNote(packRedactions(res)))
	} else {
		notes = append(notes, unredactedNote(packSecrets(res)))
	}
	if note := packOutside(res, s.dir); note != "" {
		notes = append(notes, note)
	}
	if capped, note := capText(out.Markdown, "markdown"); note != "" {
		out.Markdown = capped
		notes = append(notes, note)
	}
	out.Notes = notes
	if out.Notes == nil {
		out.Notes = []string{}
	}
	return structured(out, out.Markdown, notes)
}

// aggregateOptions maps the paths, view and estimator of a call onto the
// project's aggregate options, as ctx aggregate and ctx stats map their
// arguments, --view and --estimator: paths replace the [files] paths;
// without any, the whole base directory. Paths must lie in the project,
// and the files they name are read only there (the user's allow_outside
// stays for the files of ctx.toml).
func (s *server) aggregateOptions(p *config.Project, paths []string, view, est string) (aggregate.Options, error) {
	e, err := estimator(est)
	if err != nil {
		return aggregate.Options{}, err
	}
	o := p.AggregateOptions()
	if s.o.Cache != nil {
		o.Cache = s.o.Cache
	}
	if e != nil {
		o.Estimator = e
	}
	var vm aggregate.ViewMode
	if view != "" {
		if vm, err = aggregate.ParseViewMode(view); err != nil {
			return o, fmt.Errorf("view: %v", err)
		}
		if len(paths) == 0 && len(o.Files) > 0 {
			return o, fmt.Errorf("view: applies to the paths given, and none was given ([files] of %s sets the views of its own paths)", config.FileName)
		}
	}
	if len(paths) > 0 {
		base := o.BaseDir
		if base == "" {
			base = s.dir
		}
		o.Files = nil
		for _, a := range paths {
			if err := s.confinePattern(base, a); err != nil {
				return o, err
			}
			o.Files = append(o.Files, aggregate.FileItem{Path: a, ViewMode: vm})
		}
		o.AllowOutside = nil
	}
	if len(o.Files) == 0 {
		o = o.OrProject()
		for i := range o.Files {
			o.Files[i].ViewMode = vm
		}
	}
	return o, nil
}

// confinePattern checks a path or glob of pack and stats: cleaned (so
// that every ".." that follows a name is gone), the part before its first
// glob component must lie in the project. What a glob matches is bounded
// again file by file, links resolved, by aggregate (Options.ProjectDir).
func (s *server) confinePattern(base, pat string) error {
	if strings.TrimSpace(pat) == "" {
		return fmt.Errorf("paths: must not be empty")
	}
	parts := strings.Split(filepath.ToSlash(filepath.Clean(pat)), "/")
	fixed := len(parts)
	for i, part := range parts {
		if strings.ContainsAny(part, "*?[{") {
			fixed = i
			break
		}
	}
	prefix := strings.Join(parts[:fixed], "/")
	switch {
	case prefix == "" && strings.HasPrefix(pat, "/"):
		prefix = "/"
	case prefix == "":
		prefix = "."
	}
	_, err := s.confine("paths", base, filepath.FromSlash(prefix))
	if err != nil {
		return fmt.Errorf("paths: %s is outside the project directory %s (tools read only files in the project)", pat, s.dir)
	}
	return nil
}

// progressEvery is the least time between two progress notifications.
const progressEvery = 100 * time.Millisecond

// progress returns an aggregate.Options.Progress callback that sends MCP
// progress notifications when the client asked for them (a progress
// token): the first file at once, then at most one per progressEvery, and
// the last.
func progress(ctx context.Context, req *mcp.CallToolRequest) func(done, total int) {
	tok := req.Params.GetProgressToken()
	if tok == nil || req.Session == nil {
		return nil
	}
	var mu sync.Mutex
	var last time.Time
	return func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if done != 1 && done != total && time.Since(last) < progressEvery {
			return
		}
		last = time.Now()
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok,
			Progress: float64(done), Total: float64(total), Message: fmt.Sprintf("%d of %d files", done, total)})
	}
}

type verifyInput struct {
	Manifest string `json:"manifest,omitempty" jsonschema:"the stored manifest file, relative to the project (default: ctx.manifest.json)"`
	MaxBytes *int   `json:"max_bytes,omitempty" jsonschema:"refuse a report larger than this many bytes (default, and 0: 100000; at most 8388608)"`
}

func (s *server) verify(ctx context.Context, _ *mcp.CallToolRequest, in verifyInput) (*result, error) {
	name := in.Manifest
	if name == "" {
		name = DefaultManifest
	}
	path, err := s.confine("manifest", s.dir, name)
	if err != nil {
		return nil, err
	}
	m, err := manifest.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := s.load()
	if err != nil {
		return nil, err
	}
	// a relative manifest is verified here; an absolute one only when it
	// was built here
	if _, err := provenance.ProjectDir(m, s.dir, p.Home); err != nil {
		return nil, err
	}
	// the rebuild uses the manifest's agent, and ctx.toml like every
	// command that builds a manifest
	o := p.ManifestOptions()
	s.withCache(&o)
	o.Discover.Agent = m.Agent
	if err := s.confineManifest(ctx, name, m, o); err != nil {
		return nil, err
	}
	rep, err := provenance.Verify(ctx, m, o)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := provenance.WriteVerify(&b, rep, provenance.FormatJSON, 0); err != nil {
		return nil, err
	}
	if err := checkSize("verify report", b.Bytes(), maxBytes(in.MaxBytes), "verify a manifest with fewer rows"); err != nil {
		return nil, err
	}
	res := &result{text: []string{b.String()}, structured: b.Bytes()}
	if rep.Drifted > 0 {
		res.text = append(res.text, fmt.Sprintf("ctx: %d of %d row(s) drifted from %s", rep.Drifted, len(rep.Rows), name))
	}
	return res, nil
}

// confineManifest checks the paths that a stored manifest m records and
// verify reads (sources, the history file, the Beads store) or looks for
// (file rows): each must lie in the project, or be one that ctx discovers
// itself now (a shared file, an instruction file above the project), so
// that a manifest written to name cannot make verify report on other
// files (whether they exist, their hashes).
func (s *server) confineManifest(ctx context.Context, name string, m *manifest.Manifest, o manifest.Options) error {
	home := o.Discover.Home
	discovered := map[string]bool{}
	if o.Profile == "" && m.Profile != nil {
		if prof, err := profile.Parse(m.Profile.Name); err == nil {
			o.Profile = prof
		}
	}
	o.RelativePaths = false
	now, err := manifest.Build(ctx, o)
	if err != nil {
		return err
	}
	for _, src := range now.Sources {
		discovered[filepath.Clean(src.Path)] = true
	}
	files := map[string]bool{}
	for _, f := range now.Files {
		files[f.Path] = true
	}
	if now.History != nil && now.History.File != "" {
		discovered[filepath.Clean(manifest.ResolvePath(now.History.File, s.dir, home))] = true
	}
	if now.Beads != nil && now.Beads.File != "" {
		discovered[filepath.Clean(manifest.ResolvePath(now.Beads.File, s.dir, home))] = true
	}
	check := func(p string) error {
		abs := filepath.Clean(manifest.ResolvePath(p, s.dir, home))
		if discovered[abs] || within(s.dir, realPath(abs)) {
			return nil
		}
		return fmt.Errorf("manifest: %s records %s, which is outside the project directory %s and not a file ctx finds here (tools read only files in the project)", name, p, s.dir)
	}
	for _, src := range m.Sources {
		if src.Path == "" {
			continue
		}
		if err := check(src.Path); err != nil {
			return err
		}
	}
	if m.History != nil && m.History.File != "" {
		if err := check(m.History.File); err != nil {
			return err
		}
	}
	if m.Beads != nil && m.Beads.File != "" {
		if err := check(m.Beads.File); err != nil {
			return err
		}
	}
	// file rows are looked for under the base directories of [files]
	roots := []string{s.dir}
	if f := o.Files; f != nil {
		roots = append(roots, f.BaseDir, f.ScreenshotBaseDir)
	}
	for _, f := range m.Files {
		ok := false
		for _, root := range roots {
			if root != "" && within(s.dir, realPath(filepath.Join(root, filepath.FromSlash(f.Path)))) {
				ok = true
			}
		}
		if !ok && !files[f.Path] {
			return fmt.Errorf("manifest: %s records the file %s, which is outside the project directory %s (tools read only files in the project)", name, f.Path, s.dir)
		}
	}
	return nil
}

type statsInput struct {
	Paths         []string `json:"paths,omitempty" jsonschema:"files, directories or globs (**) relative to the project (files.base_dir); default: [files] of ctx.toml, else the whole project"`
	Top           int      `json:"top,omitempty" jsonschema:"list only the N files with the most tokens"`
	Sort          string   `json:"sort,omitempty" jsonschema:"path (default), or tokens for the largest first"`
	Tree          bool     `json:"tree,omitempty" jsonschema:"the token tree of directories and files"`
	TreeThreshold *int     `json:"tree_threshold,omitempty" jsonschema:"fold the tree's entries under N tokens into one per directory (implies tree)"`
	Estimator     string   `json:"estimator,omitempty" jsonschema:"count tokens with chars4, o200k or cl100k (default: ctx.toml, else chars4)"`
	MaxBytes      *int     `json:"max_bytes,omitempty" jsonschema:"refuse a document larger than this many bytes (default, and 0: 100000; at most 8388608)"`
}

func (s *server) stats(ctx context.Context, req *mcp.CallToolRequest, in statsInput) (*result, error) {
	wo := stats.WriteOptions{Format: stats.JSON, Tree: in.Tree || in.TreeThreshold != nil, Top: in.Top, Sort: stats.Sort(in.Sort)}
	if in.TreeThreshold != nil {
		wo.TreeThreshold = *in.TreeThreshold
	}
	if wo.Top > 0 && wo.Tree {
		return nil, fmt.Errorf("top and tree cannot be used together")
	}
	p, err := s.load()
	if err != nil {
		return nil, err
	}
	o, err := s.aggregateOptions(p, in.Paths, "", in.Estimator)
	if err != nil {
		return nil, err
	}
	o.Progress = progress(ctx, req)
	rep, err := stats.Run(ctx, o)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := stats.Write(&b, rep, wo); err != nil {
		return nil, err
	}
	if err := checkSize("stats document", b.Bytes(), maxBytes(in.MaxBytes), "ask for the top N files, the tree with a tree_threshold, or fewer paths"); err != nil {
		return nil, err
	}
	return &result{text: []string{b.String()}, structured: b.Bytes()}, nil
}
