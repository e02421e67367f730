// Package audit checks a manifest for problems and writes the result for
// people and programs.
//
// [Run] checks every source row in order (missing or unreadable files,
// duplicates and equivalences, audience mismatches, oversized sources,
// truncation, natives without evidence), then what the agent's profile
// found (its own cuts, imports, limits), then the aggregated files, then
// the text that is sent (every included fragment, every aggregated file's
// block, the chat history) for credentials, and last the rendered
// total against the thresholds. A missing file that nobody named (the
// manifest's implicit_sources) is info, so a check passes on an ordinary
// repository, and the formats for people and CI leave it out (see
// [WriteOptions.Details]); everything named explicitly keeps the warning. A credential
// is an error: `secret` findings name the rule and the line, never the
// secret. The audit reads no file: everything it checks is in the
// manifest.
//
// [Write] prints a [Report] in every format of `ctx audit` (see
// [Formats]); [Document] is the JSON document, for runtimes to decode:
//
//	ao, err := p.AuditOptions() // p from config.LoadProject
//	rep, err := audit.RunContext(ctx, m, ao)
//	err = audit.Write(os.Stdout, rep, audit.FormatJSON, audit.WriteOptions{})
//	if rep.Fails(audit.Warning) { ... }           // what --check does
package audit

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/render"
	"github.com/ctxaudit/ctx/secrets"
)

// Severity ranks a finding.
type Severity string

// Severities, in increasing order. An error is something that must not
// be sent as it is (a credential); --check fails on it at every level.
const (
	Info    Severity = "info"
	Warning Severity = "warning"
	Error   Severity = "error"
)

// rank orders the severities: info 0, warning 1, error 2.
func (s Severity) rank() int {
	switch s {
	case Warning:
		return 1
	case Error:
		return 2
	}
	return 0
}

// ParseSeverity checks s: info, warning or error.
func ParseSeverity(s string) (Severity, error) {
	switch v := Severity(s); v {
	case Info, Warning, Error:
		return v, nil
	}
	return "", fmt.Errorf("must be info, warning or error, not %q", s)
}

// Code names what a finding is about.
type Code string

// Finding codes of the instruction sources and the total, in the order the
// audit checks them per source. A duplicate or an equivalence is reported
// under the row's reason or equivalence: same_path or same_content.
const (
	CodeMissing                Code = "missing"
	CodeUnreadable             Code = "unreadable"
	CodeNativeOverlap          Code = "native_overlap"
	CodeSamePath               Code = "same_path"
	CodeSameContent            Code = "same_content"
	CodeAudienceExcluded       Code = "audience_excluded"
	CodeNativeAudienceMismatch Code = "native_audience_mismatch"
	CodeOversizedSource        Code = "oversized_source"
	CodeTruncated              Code = "truncated"
	CodeNativeEvidenceMissing  Code = "native_evidence_missing"
	// CodeOutsideProject: a source read from outside the project
	// directory (its path, or a link inside the project, leads out of it),
	// other than the shared and workspace files and what the agent's
	// profile loads; related_id is the real path. Warning.
	CodeOutsideProject Code = "outside_project"
	// CodeNULBytes: an included source holds NUL bytes, which agents
	// mishandle (many stop reading at the first); related_id counts them.
	// Warning.
	CodeNULBytes       Code = "nul_bytes"
	CodeOversizedTotal Code = "oversized_total"
	// CodeShadowedByNative: the agent deliberately skips the source for a
	// native of the same folder, so ctx does not send it (info).
	CodeShadowedByNative Code = "shadowed_by_native"
)

// Finding codes of an agent profile (manifest "profile"): the agent's own
// limits and imports.
const (
	// CodeAgentTruncation: the agent itself keeps only part of the file,
	// or none of it (Codex's shared 32 KiB); warning.
	CodeAgentTruncation Code = "agent_truncation"
	// CodeImportCycle: imports that lead back to the importing file;
	// warning.
	CodeImportCycle Code = "import_cycle"
	// CodeImportMissing: an import names a file that does not exist;
	// warning.
	CodeImportMissing Code = "import_missing"
	// CodeImportTooDeep: an import beyond the agent's five hops; info.
	CodeImportTooDeep Code = "import_too_deep"
	// CodeOverAgentLimit: a file over the agent's documented limit
	// (warning) or advice (info).
	CodeOverAgentLimit Code = "over_agent_limit"
)

// Default thresholds, from what the agents themselves accept: a source
// over 8,192 tokens is over Codex's 32 KiB of project documents (about four
// bytes a token), the tightest limit an agent enforces; 32,768 tokens in
// total are four such files, about a sixth of a 200,000-token window. (An
// agent's own limit is also checked against each file it loads:
// agent_truncation, over_agent_limit.)
const (
	DefaultLayerTokens = 8192
	DefaultTotalTokens = 32768
)

// Thresholds bound tokens per source (LayerTokens: a source over it is
// oversized_source) and in total (TotalTokens: oversized_total, and
// observed_over_total for what the agent sent). A source or total is over
// a threshold when it has more tokens; it may have as many. Each is a
// measure.Limit, so the zero Thresholds checks nothing: an audit that
// means ctx's defaults starts from [DefaultThresholds] (or
// config.Project.Thresholds, which applies [audit] of ctx.toml to them).
// measure.Max(0) is a threshold of zero: every source with a token is
// over it.
type Thresholds struct {
	LayerTokens measure.Limit
	TotalTokens measure.Limit
}

// DefaultThresholds returns 8,192 tokens per source and 32,768 in total.
func DefaultThresholds() Thresholds {
	return Thresholds{LayerTokens: measure.Max(DefaultLayerTokens), TotalTokens: measure.Max(DefaultTotalTokens)}
}

// Finding is one problem. SourceID is "" for findings about the total.
type Finding struct {
	SourceID  string   `json:"source_id"`
	Code      Code     `json:"code"`
	Severity  Severity `json:"severity"`
	RelatedID string   `json:"related_id"`
	// Line is the line of the file the finding points at, when it is
	// known (a secret's line); 0 otherwise.
	Line int `json:"line,omitempty"`
	// Message says what is wrong with its numbers, for people:
	// "8,639 tokens, over 2,000 per source". Paths in it show the home
	// directory as ~ (see [WriteOptions.Home]). Every code has one (see
	// [Rules]).
	Message string `json:"message"`
}

// NativeTotal is what the agent loads by itself: every native source that
// is available to it and loaded in every session, as much of each as the
// agent keeps.
type NativeTotal struct {
	Files  int `json:"files"`
	Bytes  int `json:"bytes"`
	Tokens int `json:"tokens"`
	// Conditional counts the natives loaded only sometimes (applyTo,
	// globs, agent-requested or manual rules), which are not in the total.
	Conditional int `json:"conditional"`
}

// Report is the audit of one manifest.
type Report struct {
	// Manifest is the audited manifest.
	Manifest   *manifest.Manifest
	Agent      string
	Estimator  string
	Thresholds Thresholds
	Sources    []manifest.Source
	Findings   []Finding
	// Total is the size of the rendered text, separators included: what
	// ctx sends.
	Total measure.Sizes
	// Native is what the agent loads by itself; the agent sees Native
	// and Total.
	Native NativeTotal
	// Observed is what the agent really sent, when an observation was
	// added ([Report.AddObserved]); nil otherwise.
	Observed *Observed
}

// ThresholdError is a threshold of [Options] that is negative.
type ThresholdError struct {
	// Name is the threshold's key: "layer_tokens" or "total_tokens".
	Name string
}

func (e *ThresholdError) Error() string { return e.Name + " must be a nonnegative whole number or inf" }

// EstimatorError says that the manifest cannot be audited with the
// estimator given: it counts tokens with another (Given is that one's
// name), or names one ctx does not know (Err says why).
type EstimatorError struct {
	Manifest string // the manifest's estimator
	Given    string // the estimator of Options, when it differs
	Err      error  // the manifest's estimator is unknown
}

func (e *EstimatorError) Error() string {
	if e.Err != nil {
		return "the manifest's estimator: " + e.Err.Error()
	}
	return fmt.Sprintf("the manifest counts tokens with %q, not %q: audit it with that estimator", e.Manifest, e.Given)
}

func (e *EstimatorError) Unwrap() error { return e.Err }

// Options are the inputs of [RunContext] besides the manifest.
type Options struct {
	// Thresholds bound tokens per source and in total.
	Thresholds Thresholds
	// Estimator counts the rendered total; it must be the estimator the
	// manifest names, and nil uses that one (see [Run]).
	Estimator measure.Estimator
	// Secrets scans every emitted fragment, aggregated file and the
	// chat history for credentials (secret findings, severity
	// error); nil scans nothing, as a nil scanner does in every option
	// of ctx. config.Project.AuditOptions gives secrets/gitleaks' with the
	// project's allowlist.
	Secrets secrets.Scanner
	// NoSecrets skips the scan even with a Secrets scanner.
	NoSecrets bool
}

// Run audits m without a secret scan: [RunContext] with the thresholds
// and estimator and a background context. A runtime that reads ctx.toml
// calls RunContext with config.Project.AuditOptions, which scans as
// `ctx audit` does.
//
// The total is measured on the rendered text with est, which must be the
// estimator the manifest names, so that source and total tokens are
// counted alike; nil uses that estimator (measure.EstimatorNamed), and the
// default for a manifest that names none. Each finding gets its message,
// with the process's home directory shown as ~ ([Write] and [NewDocument]
// write them again for [WriteOptions.Home]).
func Run(m *manifest.Manifest, th Thresholds, est measure.Estimator) (*Report, error) {
	return RunContext(context.Background(), m, Options{Thresholds: th, Estimator: est})
}

// RunContext audits m: the sources' rows, what the agent's profile found,
// the aggregated files, the secrets in the text sent, and the total. It
// stops when ctx is done.
func RunContext(ctx context.Context, m *manifest.Manifest, o Options) (*Report, error) {
	th, est := o.Thresholds, o.Estimator
	for _, v := range []struct {
		name string
		v    measure.Limit
	}{{"layer_tokens", th.LayerTokens}, {"total_tokens", th.TotalTokens}} {
		if v.v.Negative() {
			return nil, &ThresholdError{Name: v.name}
		}
	}
	if est == nil && m.Estimator != "" {
		named, err := measure.EstimatorNamed(m.Estimator)
		if err != nil {
			return nil, &EstimatorError{Manifest: m.Estimator, Err: err}
		}
		est = named
	}
	if est == nil {
		est = measure.Default()
	}
	if m.Estimator != "" && m.Estimator != est.Name() {
		return nil, &EstimatorError{Manifest: m.Estimator, Given: est.Name()}
	}
	rep := &Report{Manifest: m, Agent: m.Agent, Estimator: m.Estimator, Thresholds: th, Sources: m.Sources, Findings: []Finding{}}
	byID := map[string]*manifest.Source{}
	for i := range m.Sources {
		byID[m.Sources[i].ID] = &m.Sources[i]
	}
	profiled, conditional := map[string]bool{}, map[string]bool{}
	if m.Profile != nil {
		for _, f := range m.Profile.Files {
			profiled[f.ID] = true
			conditional[f.ID] = f.Condition != ""
		}
	}
	add := func(s *manifest.Source, code Code, sev Severity, rel string) {
		rep.Findings = append(rep.Findings, Finding{SourceID: s.ID, Code: code, Severity: sev, RelatedID: rel})
	}
	for i := range m.Sources {
		s := &m.Sources[i]
		native := s.Delivery == discover.DeliveryNative
		switch s.Status {
		case manifest.StatusMissing:
			sev := Warning
			if implicit(m, s) {
				sev = Info
			}
			add(s, CodeMissing, sev, "")
		case manifest.StatusUnreadable:
			add(s, CodeUnreadable, Warning, "")
		}
		switch {
		case s.DuplicateOf != "":
			code := Code(s.Reason)
			if s.Reason == manifest.ReasonNativeAutoload {
				code = CodeNativeOverlap
			}
			add(s, code, Info, s.DuplicateOf)
		case s.EquivalentTo != "":
			sev := Info
			// two natives the agent loads in every session send the same
			// bytes twice; a conditional one (a package's CLAUDE.md that
			// imports @AGENTS.md, as the root's does) is loaded only in
			// its folder, where its imports resolve to other files
			if o := byID[s.EquivalentTo]; native && o != nil && o.Delivery == discover.DeliveryNative && !conditional[s.ID] && !conditional[o.ID] {
				sev = Warning
			}
			add(s, Code(s.Equivalence), sev, s.EquivalentTo)
		}
		if s.Reason == manifest.ReasonAudienceExcluded {
			add(s, CodeAudienceExcluded, Info, "")
		}
		if native && !s.AudienceMatches {
			add(s, CodeNativeAudienceMismatch, Warning, "")
		}
		if s.SourceTokens != nil && th.LayerTokens.Exceeded(int64(*s.SourceTokens)) {
			add(s, CodeOversizedSource, Warning, "")
		}
		if s.Truncated {
			add(s, CodeTruncated, Warning, "")
		}
		if native && s.NativeEvidence == "" {
			add(s, CodeNativeEvidenceMissing, Warning, "")
		}
		if outside(m, s, profiled) {
			add(s, CodeOutsideProject, Warning, s.CanonicalPath)
		}
		if i < len(m.Fragments) {
			if n := strings.Count(m.Fragments[i].Text, "\x00"); n > 0 {
				add(s, CodeNULBytes, Warning, strconv.Itoa(n))
			}
		}
	}
	// what the agent's profile found, then the aggregated files, before
	// the total
	rep.Findings = append(rep.Findings, profileFindings(m)...)
	rep.Native = nativeTotal(m)
	rep.Findings = append(rep.Findings, fileFindings(m)...)
	rep.Findings = append(rep.Findings, redactionFindings(m)...)
	rep.Findings = append(rep.Findings, attachmentFindings(m)...)
	if sc := o.Secrets; sc != nil && !o.NoSecrets {
		found, err := secretFindings(ctx, m, sc)
		if err != nil {
			return nil, err
		}
		rep.Findings = append(rep.Findings, found...)
	}
	text := []byte(render.Text(m))
	rep.Total = measure.Measure(text, est)
	if th.TotalTokens.Exceeded(int64(rep.Total.Tokens)) {
		rep.Findings = append(rep.Findings, Finding{Code: CodeOversizedTotal, Severity: Warning})
	}
	rep.Findings = withMessages(rep, processHome())
	return rep, nil
}

// Fails reports whether any finding is at least as severe as level.
func (r *Report) Fails(level Severity) bool { return r.Count(level) > 0 }

// Count returns the number of problems at least as severe as level: the
// findings at that level, less the size of a source that is another one
// (same_path, same_content), whose size is the other's finding (the
// table lists it once; Findings keeps both).
func (r *Report) Count(level Severity) int {
	n := 0
	var ix *index
	for _, f := range r.Findings {
		if f.Severity.rank() < level.rank() {
			continue
		}
		if f.Code == CodeOversizedSource {
			if ix == nil {
				ix = newIndex(r)
			}
			if quiet(r, ix, f) {
				continue
			}
		}
		n++
	}
	return n
}

// outside reports whether s was read from outside the project directory
// and is not one of the files ctx looks up there itself: the shared file
// and the workspace files (unless the project's configuration named their
// location: m.ConfiguredSources) and what the agent's profile loads (the
// ids of m.Profile's files, profiled, which the configuration cannot
// spoof).
func outside(m *manifest.Manifest, s *manifest.Source, profiled map[string]bool) bool {
	if s.Status != manifest.StatusAvailable && s.Status != manifest.StatusEmpty {
		return false
	}
	switch s.ID {
	case discover.IDShared, discover.IDWorkspaceUser, discover.IDWorkspaceSoul:
		// looked up by ctx itself, or named by the user; not when the
		// repository's ctx.toml gave the location
		if !slices.Contains(m.ConfiguredSources, s.ID) {
			return false
		}
	}
	if profiled[s.ID] {
		return false
	}
	return m.OutsideProject(s.CanonicalPath)
}

// implicit reports whether s is a file that nobody named: a source the
// manifest lists in implicit_sources (project_agents, project_claude, and
// the shared file at its default location, not given by a flag,
// AGENTS_GLOBAL_MD or shared_path). Its absence is normal, so `missing` is
// info for it; a file named explicitly that is missing stays a warning, as
// does every source of a manifest written before implicit_sources existed.
func implicit(m *manifest.Manifest, s *manifest.Source) bool {
	for _, id := range m.ImplicitSources {
		if id == s.ID {
			return true
		}
	}
	return false
}
