// Package audit checks a manifest for problems: missing or unreadable files,
// duplicates, audience mismatches, oversized sources and totals, and
// truncation. It never looks at source text beyond the manifest's sizes.
package audit

import (
	"fmt"
	"math"

	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/render"
)

// Severities, in increasing order.
const (
	Info    = "info"
	Warning = "warning"
)

// Finding codes.
const (
	CodeMissing                = "missing"
	CodeUnreadable             = "unreadable"
	CodeNativeOverlap          = "native_overlap"
	CodeSamePath               = "same_path"
	CodeSameContent            = "same_content"
	CodeEquivalence            = "equivalence"
	CodeAudienceExcluded       = "audience_excluded"
	CodeNativeAudienceMismatch = "native_audience_mismatch"
	CodeOversizedSource        = "oversized_source"
	CodeTruncated              = "truncated"
	CodeNativeEvidenceMissing  = "native_evidence_missing"
	CodeOversizedTotal         = "oversized_total"
)

// Default thresholds.
const (
	DefaultLayerTokens = 2000
	DefaultTotalTokens = 8000
)

// Thresholds bound tokens per source and in total; math.Inf(1) is unlimited.
type Thresholds struct {
	LayerTokens float64
	TotalTokens float64
}

// DefaultThresholds returns 2000 tokens per source and 8000 in total.
func DefaultThresholds() Thresholds {
	return Thresholds{LayerTokens: DefaultLayerTokens, TotalTokens: DefaultTotalTokens}
}

// Finding is one problem. SourceID is "" for findings about the total.
type Finding struct {
	SourceID  string `json:"source_id"`
	Code      string `json:"code"`
	Severity  string `json:"severity"`
	RelatedID string `json:"related_id"`
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
	// Total is the size of the rendered text, separators included.
	Total measure.Sizes
}

// Error is an invalid threshold.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Run audits m. The total is measured on the rendered text with est (nil
// uses measure.Default()), which must be the estimator the manifest names,
// so that source and total tokens are counted alike.
func Run(m *manifest.Manifest, th Thresholds, est measure.Estimator) (*Report, error) {
	for _, v := range []struct {
		name string
		v    float64
	}{{"layer_tokens", th.LayerTokens}, {"total_tokens", th.TotalTokens}} {
		if math.IsNaN(v.v) || v.v < 0 {
			return nil, &Error{Msg: v.name + " must be a nonnegative number or inf"}
		}
	}
	if est == nil {
		est = measure.Default()
	}
	if m.Estimator != "" && m.Estimator != est.Name() {
		return nil, &Error{Msg: fmt.Sprintf("the manifest counts tokens with %q, not %q: audit it with that estimator", m.Estimator, est.Name())}
	}
	rep := &Report{Manifest: m, Agent: m.Agent, Estimator: m.Estimator, Thresholds: th, Sources: m.Sources, Findings: []Finding{}}
	byID := map[string]*manifest.Source{}
	for i := range m.Sources {
		byID[m.Sources[i].ID] = &m.Sources[i]
	}
	add := func(s *manifest.Source, code, sev, rel string) {
		rep.Findings = append(rep.Findings, Finding{SourceID: s.ID, Code: code, Severity: sev, RelatedID: rel})
	}
	for i := range m.Sources {
		s := &m.Sources[i]
		native := s.Delivery == "native"
		if s.Status == manifest.StatusMissing || s.Status == manifest.StatusUnreadable {
			add(s, s.Status, Warning, "")
		}
		switch {
		case s.DuplicateOf != "":
			code := s.Reason
			if s.Reason == manifest.ReasonNativeAutoload {
				code = CodeNativeOverlap
			}
			add(s, code, Info, s.DuplicateOf)
		case s.EquivalentTo != "":
			sev := Info
			if o := byID[s.EquivalentTo]; native && o != nil && o.Delivery == "native" {
				sev = Warning
			}
			add(s, CodeEquivalence, sev, s.EquivalentTo)
		}
		if s.Reason == manifest.ReasonAudienceExcluded {
			add(s, CodeAudienceExcluded, Info, "")
		}
		if native && !s.AudienceMatches {
			add(s, CodeNativeAudienceMismatch, Warning, "")
		}
		if s.SourceTokens != nil && float64(*s.SourceTokens) > th.LayerTokens {
			add(s, CodeOversizedSource, Warning, "")
		}
		if s.Truncated {
			add(s, CodeTruncated, Warning, "")
		}
		if native && s.NativeEvidence == "" {
			add(s, CodeNativeEvidenceMissing, Warning, "")
		}
	}
	// the aggregated files after the sources, before the total
	rep.Findings = append(rep.Findings, fileFindings(m)...)
	text := []byte(render.Text(m))
	rep.Total = measure.Measure(text, est)
	if float64(rep.Total.Tokens) > th.TotalTokens {
		rep.Findings = append(rep.Findings, Finding{Code: CodeOversizedTotal, Severity: Warning})
	}
	return rep, nil
}

// Fails reports whether any finding is at least as severe as level
// ("info" or "warning").
func (r *Report) Fails(level string) bool {
	for _, f := range r.Findings {
		if level == Info || f.Severity == Warning {
			return true
		}
	}
	return false
}
