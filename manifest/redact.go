package manifest

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/history"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/secrets"
)

// Redaction records the credentials replaced in one source, file or piece
// of the chat history (Options.Redact): the text sent differs from
// the file on purpose, and the hashes tell what was replaced.
type Redaction struct {
	// ID names the row: a source id, "file:" and a file's path, or
	// "history" (SectionHistory).
	ID string `json:"id"`
	// Where narrows it down in the history: the message id and the piece
	// ("m3 part 2 text"), or "attachment KEY"; "" for a source or a file.
	Where string `json:"where,omitempty"`
	// Secrets are the credentials replaced: the rule, and the line and
	// column in the text before redaction (never the secret).
	Secrets []secrets.Finding `json:"secrets"`
	// HashBefore is the BLAKE3 of the text before redaction (for a source
	// or a file, its source_hash) and HashAfter of the text after it,
	// before any budget cut or view.
	HashBefore string `json:"hash_before"`
	HashAfter  string `json:"hash_after"`
}

// redactRow replaces the credentials in an accepted row's text, which is
// then what budgets cut.
func redactRow(ctx context.Context, sc secrets.Scanner, r *row, project string) (*Redaction, error) {
	if !r.accepted || len(r.raw) == 0 {
		return nil, nil
	}
	name := r.c.ID
	if !r.c.IsText() {
		if rel, err := filepath.Rel(project, r.c.Path); err == nil && filepath.IsLocal(rel) {
			name = filepath.ToSlash(rel)
		} else {
			name = filepath.ToSlash(r.c.Path)
		}
	}
	text, found, err := sc.Redact(ctx, name, string(r.raw))
	if err != nil || len(found) == 0 {
		return nil, err
	}
	r.redacted = []byte(text)
	r.emitted = r.redacted
	return &Redaction{ID: r.c.ID, Secrets: found, HashBefore: measure.Hash(r.raw), HashAfter: measure.Hash(r.redacted)}, nil
}

// fileRedactions returns the records of the aggregated files that were
// redacted.
func fileRedactions(res *aggregate.Result) []Redaction {
	var out []Redaction
	for _, it := range res.Items {
		if it.Redacted == nil {
			continue
		}
		out = append(out, Redaction{ID: "file:" + it.Path, Secrets: it.Redacted.Secrets,
			HashBefore: it.Source.Hash, HashAfter: it.Redacted.HashAfter})
	}
	return out
}

// historyRedactions returns the records of the history's redactions.
func historyRedactions(rep history.Report) []Redaction {
	var out []Redaction
	for _, r := range rep.Redactions {
		where := r.Where
		if r.MessageID != "" {
			where = r.MessageID + " " + where
		}
		out = append(out, Redaction{ID: string(SectionHistory), Where: where, Secrets: r.Secrets,
			HashBefore: r.HashBefore, HashAfter: r.HashAfter})
	}
	return out
}

// RedactionSummary says in one line what redaction replaced: "3
// credentials redacted (aws-access-token ×2, jwt) in project_agents,
// file:app/conf.py"; "" when nothing was.
func (m *Manifest) RedactionSummary() string {
	var all []secrets.Finding
	var ids []string
	seen := map[string]bool{}
	for _, r := range m.Redactions {
		all = append(all, r.Secrets...)
		if !seen[r.ID] {
			seen[r.ID] = true
			ids = append(ids, r.ID)
		}
	}
	if len(all) == 0 {
		return ""
	}
	return secrets.Summary(all) + " in " + strings.Join(ids, ", ")
}

// ScanName is the name the text of source s is scanned for secrets under,
// which the paths of an allowlist match: its path relative to the project
// directory with forward slashes when it lies inside it, else its path as
// recorded (a relative manifest's "~/..." or "../..."), its real path when
// it is a link that leads outside the project, and its id when it is
// inline text.
func (m *Manifest) ScanName(s *Source) string {
	if s.Path == "" {
		return s.ID
	}
	if m.OutsideProject(s.CanonicalPath) {
		// a link in the project to a file outside it is that file (as the
		// audit's outside_project finding judges it): its real path, to
		// which no allowlist of the project applies
		return filepath.ToSlash(s.CanonicalPath)
	}
	p := s.Path
	if filepath.IsAbs(p) && m.ProjectDir != "" {
		if rel, err := filepath.Rel(m.ProjectDir, p); err == nil && filepath.IsLocal(rel) {
			p = rel
		}
	}
	return filepath.ToSlash(p)
}
