package observe

import (
	"fmt"
	"path/filepath"

	"github.com/ctxaudit/ctx/profile"
)

// Comparison holds what ctx predicts an agent loads by itself against what
// the agent sent in its turn.
type Comparison struct {
	// Profile is the profile of the prediction, and Checked the agent
	// version its rules were last held against.
	Profile string `json:"profile"`
	Checked string `json:"checked_against,omitempty"`
	// Request is the Seq of the request compared (Record.Turn).
	Request int         `json:"request"`
	Files   []FileMatch `json:"files"`
	// Differs is true when any file's outcome is not "match".
	Differs bool `json:"differs"`
}

// FileMatch is one file of the prediction or of the request.
type FileMatch struct {
	Path string `json:"path"`
	// Predicted is what ctx predicts of the file: "loaded", "cut at N",
	// "conditional: WHEN", "blank" or "not predicted"; Sent what the
	// agent sent: "whole", "cut at N", "changed" or "not sent".
	Predicted string `json:"predicted"`
	Sent      string `json:"sent"`
	// Outcome is match, predicted_not_sent, sent_not_predicted,
	// cut_differs or changed.
	Outcome string `json:"outcome"`
}

// The outcomes of a file.
const (
	OutcomeMatch            = "match"
	OutcomePredictedNotSent = "predicted_not_sent"
	OutcomeSentNotPredicted = "sent_not_predicted"
	OutcomeCutDiffers       = "cut_differs"
	OutcomeChanged          = "changed"
)

// Compare holds the chain ctx predicts against the files of req (the
// record's turn): predicted and sent, predicted and not sent, sent and
// not predicted, cut at another byte. A file is matched by its path with
// links resolved, and has one row however often the request holds it (the
// first tells what was sent). A conditional or blank file of the chain is
// not expected at the start of a session; sent, it does not match.
func Compare(chain *profile.Chain, req *Request) *Comparison {
	c := &Comparison{Profile: string(chain.Profile), Checked: profile.CheckedAgainst(chain.Profile)}
	if req != nil {
		c.Request = req.Seq
	}
	type sent struct {
		seg  Segment
		used bool
	}
	var sends []*sent
	byPath := map[string]*sent{}
	if req != nil {
		for _, s := range req.Segments {
			if s.Kind != KindInstruction && s.Kind != KindMemory {
				continue
			}
			key := "text:" + s.Name // a text of no file, by its name
			if s.File != nil {
				key = canonicalPath(s.File.Path)
			}
			if _, dup := byPath[key]; dup {
				continue // one row per file
			}
			x := &sent{seg: s}
			sends = append(sends, x)
			byPath[key] = x
		}
	}
	listed := map[string]bool{}
	for _, f := range chain.Files {
		if listed[canonicalPath(f.Path)] {
			continue // one row per file
		}
		listed[canonicalPath(f.Path)] = true
		m := FileMatch{Path: f.Path}
		expected := true
		switch {
		case f.Unreadable != "":
			m.Predicted, expected = "unreadable: "+f.Unreadable, false
		case f.Blank:
			m.Predicted, expected = "blank", false
		case f.Condition != "":
			m.Predicted, expected = "conditional: "+f.Condition, false
		case f.Loaded == 0:
			m.Predicted, expected = "cut at 0", false
		case f.Cut():
			m.Predicted = fmt.Sprintf("cut at %d", f.Loaded)
		default:
			m.Predicted = "loaded"
		}
		x := byPath[canonicalPath(f.Path)]
		switch {
		case x == nil && !expected:
			m.Sent, m.Outcome = "not sent", OutcomeMatch
		case x == nil:
			m.Sent, m.Outcome = "not sent", OutcomePredictedNotSent
		default:
			x.used = true
			m.Sent = sentText(x.seg.File)
			switch {
			case !expected:
				m.Outcome = OutcomeSentNotPredicted
			case x.seg.File.Status == SentChanged || x.seg.File.Status == SentUnread:
				m.Outcome = OutcomeChanged
			case x.seg.File.Status == SentCut && x.seg.File.CutAt != nil && f.Cut() && *x.seg.File.CutAt == f.Loaded,
				x.seg.File.Status == SentWhole && !f.Cut():
				m.Outcome = OutcomeMatch
			default:
				m.Outcome = OutcomeCutDiffers
			}
		}
		c.Files = append(c.Files, m)
	}
	for _, x := range sends {
		if x.used {
			continue
		}
		m := FileMatch{Path: x.seg.Name, Predicted: "not predicted", Outcome: OutcomeSentNotPredicted, Sent: "text of no file"}
		if x.seg.File != nil {
			m.Path, m.Sent = x.seg.File.Path, sentText(x.seg.File)
		}
		x.used = true
		c.Files = append(c.Files, m)
	}
	for _, m := range c.Files {
		if m.Outcome != OutcomeMatch {
			c.Differs = true
		}
	}
	return c
}

// sentText says what was sent of a file: "whole", "cut at N", or its
// status ("cut" alone for a record read back that gives no byte).
func sentText(f *SentFile) string {
	switch {
	case f.Status == SentCut && f.CutAt != nil:
		return fmt.Sprintf("cut at %d", *f.CutAt)
	case f.Status == SentWhole:
		return "whole"
	}
	return f.Status
}

// canonicalPath is p with its links resolved, or p cleaned.
func canonicalPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// SentFiles returns the files of a request, in the order it holds them.
func (r *Request) SentFiles() []SentFile {
	var out []SentFile
	for _, s := range r.Segments {
		if s.File != nil {
			out = append(out, *s.File)
		}
	}
	return out
}

// Totals adds up the segments of a request by kind, in the order of
// [Kinds].
func (r *Request) Totals() []Segment {
	sum := map[Kind]*Segment{}
	for _, s := range r.Segments {
		t := sum[s.Kind]
		if t == nil {
			t = &Segment{Kind: s.Kind}
			sum[s.Kind] = t
		}
		t.Bytes += s.Bytes
		t.Chars += s.Chars
		t.Tokens += s.Tokens
	}
	var out []Segment
	for _, k := range Kinds() {
		if t := sum[k]; t != nil {
			out = append(out, *t)
		}
	}
	return out
}
