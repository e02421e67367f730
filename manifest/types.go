package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/jsonenc"
	"github.com/ctxaudit/ctx/measure"
)

// SchemaVersion is the manifest format written by this package.
//
// Changelog:
//   - 1: the first version: tool, agent, project_dir, estimator, budgets,
//     sources (36 fields each) and fragments; later extended compatibly
//     with the optional files, history, sections and paths.
const SchemaVersion = 1

// Manifest records every instruction source considered for an agent, what
// was decided about it, and the text emitted for it.
type Manifest struct {
	SchemaVersion int       `json:"schema_version"`
	Tool          Tool      `json:"tool"`
	Agent         string    `json:"agent"`
	ProjectDir    string    `json:"project_dir"`
	Estimator     string    `json:"estimator"`
	Budgets       Budgets   `json:"budgets"`
	Sources       []Source  `json:"sources"`
	Fragments     Fragments `json:"fragments"`

	// Paths is "relative" (PathsRelative) when the paths are recorded
	// relative to the project directory (see [Relativize]); absent when
	// they are absolute, as in the original format.
	Paths string `json:"paths,omitempty"`
	// Files lists the aggregated project files (see [FileRow]).
	Files []FileRow `json:"files,omitempty"`
	// UnmatchedFocus lists the Tier 3 focus entries that matched no file
	// (aggregate.Result.UnmatchedFocus), as written; the audit reports each
	// (focus_unmatched).
	UnmatchedFocus []string `json:"unmatched_focus,omitempty"`
	// Beads records the Beads store (see [Beads]).
	Beads *Beads `json:"beads,omitempty"`
	// History records the chat history (see [History]).
	History *History `json:"history,omitempty"`
	// Sections are the rendered blocks after the instruction fragments.
	Sections []Section `json:"sections,omitempty"`
	// Profile records what the agent loads by itself (see [Profile]).
	Profile *Profile `json:"profile,omitempty"`
	// ImplicitSources lists, in order, the ids of the sources ctx looked up
	// by itself at their default locations, which nobody named (the
	// project's AGENTS.md and CLAUDE.md, the shared file at
	// ~/.config/agents/GLOBAL.md when nothing gave its path). The audit
	// reports such a source that is missing as info, not a warning.
	ImplicitSources []string `json:"implicit_sources,omitempty"`
	// ConfiguredSources lists the ids of the shared and workspace sources
	// whose location the project's configuration gave (see
	// Options.ConfiguredSources); absent when none.
	ConfiguredSources []string `json:"configured_sources,omitempty"`
	// Redactions lists the credentials replaced in the text sent
	// (Options.Redact), in rendering order; absent when none were.
	Redactions []Redaction `json:"redactions,omitempty"`

	// readErrors says, by source id, why each unreadable source could not
	// be read ([Manifest.ReadError]); not recorded in the JSON.
	readErrors map[string]string
}

// ReadError says in a few words why the source with the id could not be
// read, as [Build] found when it read it: "permission denied", "is a
// directory", "not a regular file", "larger than 67108864 bytes", "not
// UTF-8". It is "" for a source that was read, and for every source of
// a manifest decoded from JSON, which records the status (unreadable) but
// not why.
func (m *Manifest) ReadError(id string) string { return m.readErrors[id] }

// Tool describes the program that wrote the manifest.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Budget limits the characters, lines and tokens emitted by the sources it
// applies to; the zero Limit is unlimited (JSON null). MaxTokens counts
// with the manifest's estimator; it is written only when set, so that a
// manifest without token budgets is the original format.
type Budget struct {
	MaxChars  measure.Limit `json:"max_chars"`
	MaxLines  measure.Limit `json:"max_lines"`
	MaxTokens measure.Limit `json:"max_tokens,omitzero"`
}

// NamedBudget is a budget with its name: a source id or a kind.
type NamedBudget struct {
	Name string
	Budget
	// Where is where the budget was declared, for error messages
	// ("ctx.toml:12"); it is not recorded.
	Where string
}

// Budgets is an ordered map of budget name to limits, encoded as a JSON
// object in order.
type Budgets []NamedBudget

// Get returns the budget called name.
func (bs Budgets) Get(name string) (Budget, bool) {
	for _, b := range bs {
		if b.Name == name {
			return b.Budget, true
		}
	}
	return Budget{}, false
}

// MarshalJSON encodes the budgets as an object in order.
func (bs Budgets) MarshalJSON() ([]byte, error) {
	return marshalObject(len(bs), func(i int) (string, any) { return bs[i].Name, bs[i].Budget })
}

// UnmarshalJSON decodes the object, keeping its order.
func (bs *Budgets) UnmarshalJSON(data []byte) error {
	out := Budgets{}
	err := decodeObject(data, func(key string, d *json.Decoder) error {
		var b Budget
		if err := strictDecode(d, &b); err != nil {
			return fmt.Errorf("budgets.%s: %w", key, err)
		}
		out = append(out, NamedBudget{Name: key, Budget: b})
		return nil
	})
	*bs = out
	return err
}

// Fragment is the text emitted for one source.
type Fragment struct {
	ID   string
	Text string
}

// Fragments maps source ids to emitted text, in source order; it is encoded
// as a JSON object in order. A source that is not included has "".
type Fragments []Fragment

// Get returns the fragment of id.
func (fs Fragments) Get(id string) (string, bool) {
	for _, f := range fs {
		if f.ID == id {
			return f.Text, true
		}
	}
	return "", false
}

// MarshalJSON encodes the fragments as an object in order.
func (fs Fragments) MarshalJSON() ([]byte, error) {
	return marshalObject(len(fs), func(i int) (string, any) { return fs[i].ID, fs[i].Text })
}

// UnmarshalJSON decodes the object, keeping its order.
func (fs *Fragments) UnmarshalJSON(data []byte) error {
	out := Fragments{}
	err := decodeObject(data, func(key string, d *json.Decoder) error {
		var s string
		if err := d.Decode(&s); err != nil {
			return fmt.Errorf("fragments.%s: %w", key, err)
		}
		out = append(out, Fragment{ID: key, Text: s})
		return nil
	})
	*fs = out
	return err
}

// Source is one row of the manifest: the 36 fields of the reference, in
// order, then the token budget's two fields, written only for a row whose
// budget has max_tokens (so that a manifest without token budgets is the
// original format). Pointer fields are null when unknown: sizes of missing
// and unreadable files, hashes not computed, unlimited limits.
type Source struct {
	ID              string            `json:"id"`
	Kind            string            `json:"kind"`
	Order           float64           `json:"order"`
	RequestedPath   string            `json:"requested_path"`
	Path            string            `json:"path"`
	CanonicalPath   string            `json:"canonical_path"`
	Audience        []string          `json:"audience"`
	Delivery        discover.Delivery `json:"delivery"`
	Origin          string            `json:"origin"`
	Scope           string            `json:"scope"`
	ConfigPath      string            `json:"config_path"`
	NativeEvidence  string            `json:"native_evidence"`
	Status          Status            `json:"status"`
	Included        bool              `json:"included"`
	Reason          Reason            `json:"reason"`
	DuplicateOf     string            `json:"duplicate_of"`
	EquivalentTo    string            `json:"equivalent_to"`
	Equivalence     Reason            `json:"equivalence"`
	AudienceMatches bool              `json:"audience_matches"`
	SourceBytes     *int              `json:"source_bytes"`
	SourceChars     *int              `json:"source_chars"`
	SourceLines     *int              `json:"source_lines"`
	SourceTokens    *int              `json:"source_tokens"`
	SourceHash      *string           `json:"source_hash"`
	HashAlgorithm   string            `json:"hash_algorithm"`
	EmittedBytes    *int              `json:"emitted_bytes"`
	EmittedChars    *int              `json:"emitted_chars"`
	EmittedLines    *int              `json:"emitted_lines"`
	EmittedTokens   *int              `json:"emitted_tokens"`
	EmittedHash     *string           `json:"emitted_hash"`
	Truncated       bool              `json:"truncated"`
	Budget          string            `json:"budget"`
	MaxChars        measure.Limit     `json:"max_chars"`
	MaxLines        measure.Limit     `json:"max_lines"`
	OmittedChars    int               `json:"omitted_chars"`
	OmittedLines    int               `json:"omitted_lines"`

	// MaxTokens is what was left of the budget's max_tokens pool before
	// this source; absent (the zero Limit) when the row's budget has no
	// max_tokens.
	MaxTokens measure.Limit `json:"max_tokens,omitzero"`
	// OmittedTokens is source_tokens minus emitted_tokens (at least 0);
	// nil, and absent, when the row's budget has no max_tokens.
	OmittedTokens *int `json:"omitted_tokens,omitempty"`
}

// Status is what reading a source found.
type Status string

// Statuses of a source.
const (
	StatusAvailable  Status = "available"
	StatusEmpty      Status = "empty" // only space, tab, CR and LF
	StatusMissing    Status = "missing"
	StatusUnreadable Status = "unreadable" // a directory, special file, read error, too large, or not UTF-8
)

// Reason is why a source was included or not; same_path and same_content
// also name an equivalence.
type Reason string

// Reasons for a decision (a missing, unreadable or empty source has its
// status as its reason).
const (
	ReasonIncluded            Reason = "included"
	ReasonAudienceExcluded    Reason = "audience_excluded"
	ReasonNativeAutoload      Reason = "native_autoload"
	ReasonSamePath            Reason = "same_path"
	ReasonSameContent         Reason = "same_content"
	ReasonFallbackNotSelected Reason = "fallback_not_selected"
	ReasonBudgetExhausted     Reason = "budget_exhausted"
	// ReasonShadowedByNative: the agent's profile says the agent
	// deliberately skips this file for a native of the same folder
	// (duplicate_of), so ctx does not send it either.
	ReasonShadowedByNative Reason = "shadowed_by_native"
)

// marshalObject encodes n key/value pairs as a JSON object, in order.
func marshalObject(n int, pair func(i int) (string, any)) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i := 0; i < n; i++ {
		key, val := pair(i)
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := jsonenc.Compact(key)
		if err != nil {
			return nil, err
		}
		v, err := jsonenc.Compact(val)
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func decodeObject(data []byte, each func(key string, d *json.Decoder) error) error {
	d := json.NewDecoder(bytes.NewReader(data))
	t, err := d.Token()
	if err != nil {
		return err
	}
	if t != json.Delim('{') {
		return fmt.Errorf("expected an object")
	}
	seen := map[string]bool{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return err
		}
		key := t.(string)
		if seen[key] {
			return fmt.Errorf("duplicate key %q", key)
		}
		seen[key] = true
		if err := each(key, d); err != nil {
			return err
		}
	}
	_, err = d.Token()
	return err
}

func strictDecode(d *json.Decoder, v any) error {
	var raw json.RawMessage
	if err := d.Decode(&raw); err != nil {
		return err
	}
	dd := json.NewDecoder(bytes.NewReader(raw))
	dd.DisallowUnknownFields()
	return dd.Decode(v)
}
