package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ctxaudit/ctx/internal/decodelimit"
	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/internal/jsonenc"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/schemas"
)

// MaxManifestBytes bounds how much [Decode] reads.
const MaxManifestBytes = 256 << 20

// ErrVersion is returned by [Decode] for a manifest of another schema version.
var ErrVersion = errors.New("expected a version 1 manifest")

// ErrAlignment is returned by [Check] when source ids and fragments differ.
var ErrAlignment = errors.New("manifest source ids and fragments must remain aligned")

// Encode writes m as indented JSON with a final newline. The output is
// deterministic: the same manifest gives the same bytes.
func Encode(w io.Writer, m *Manifest) error {
	b, err := Marshal(m)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Marshal returns the JSON encoding of m as written by [Encode].
//
// A manifest larger than MaxManifestBytes is an error: [Decode] would not
// read it back, so writer and reader agree.
func Marshal(m *Manifest) ([]byte, error) { return marshal(m, MaxManifestBytes) }

func marshal(m *Manifest, limit int) ([]byte, error) {
	// the texts are written whole: when they alone are over the limit, so
	// is the manifest, and it is refused before it is encoded
	n := 0
	for _, f := range m.Fragments {
		n += len(f.Text)
	}
	for _, s := range m.Sections {
		n += len(s.Text)
	}
	if n > limit {
		return nil, fmt.Errorf("the manifest would be over %d bytes (its texts alone), more than the %d that ctx reads back: aggregate fewer files or use a token budget", n, limit)
	}
	b, err := jsonenc.Indent(m)
	if err != nil {
		return nil, err
	}
	if err := checkSizeOf(len(b), limit); err != nil {
		return nil, err
	}
	return b, nil
}

// checkSize refuses an encoded manifest that Decode would not read.
func checkSize(n int) error { return checkSizeOf(n, MaxManifestBytes) }

func checkSizeOf(n, limit int) error {
	if n > limit {
		return fmt.Errorf("the manifest would be %d bytes, more than the %d that ctx reads back: aggregate fewer files or use a token budget", n, limit)
	}
	return nil
}

// Decode reads a manifest strictly: the schema version is read first and must
// be 1, the document must match the version 1 JSON Schema (every field
// present and of its type, no unknown fields), and the result is checked
// with [Check]. The history section of a manifest written before it was
// named [SectionHistory] ("discussion_history") is read as SectionHistory,
// in its sections and its redactions.
//
// A reader that tells its size (a regular file, as standard input
// redirected from one is) is refused by that size before it is read.
func Decode(r io.Reader) (*Manifest, error) {
	data, err := fileio.ReadAll(r, MaxManifestBytes)
	if errors.Is(err, fileio.ErrTooLarge) {
		return nil, fmt.Errorf("manifest larger than %d bytes", MaxManifestBytes)
	}
	if err != nil {
		return nil, err
	}
	return decode(data)
}

func decode(data []byte) (*Manifest, error) {
	// nesting and repeated keys first: encoding/json keeps the last of
	// two keys, and the schema validator sees only one
	if err := decodelimit.JSON(data, decodelimit.Options{UniqueKeys: true}); err != nil {
		var le *decodelimit.Error
		if errors.As(err, &le) {
			return nil, fmt.Errorf("invalid manifest at line %d, column %d: %w", le.Line, le.Col, err)
		}
		return nil, fmt.Errorf("invalid manifest: %w", err)
	}
	var head struct {
		SchemaVersion json.RawMessage `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, jsonError(data, err)
	}
	if string(head.SchemaVersion) != "1" {
		return nil, ErrVersion
	}
	v, err := schemas.NewManifestV1Validator()
	if err != nil {
		return nil, err
	}
	if err := v.Validate(data); err != nil {
		var ve *schemas.ValidationError
		if errors.As(err, &ve) {
			return nil, fmt.Errorf("invalid manifest: %w", err)
		}
		return nil, jsonError(data, err)
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var m Manifest
	if err := d.Decode(&m); err != nil {
		return nil, jsonError(data, err)
	}
	if d.More() {
		return nil, errors.New("unexpected data after the manifest")
	}
	renameOld(&m)
	if err := Check(&m); err != nil {
		return nil, err
	}
	return &m, nil
}

// ReadFile reads and decodes the stored manifest at path (see [Decode])
// through ctx's bounded reader: a regular file of at most
// MaxManifestBytes. Errors name the file as given.
func ReadFile(path string) (*Manifest, error) {
	data, _, err := fileio.Read(path, MaxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", path, fileio.Describe(err))
	}
	m, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Check verifies that m can be rendered: version 1, one fragment per source
// id in the same order, with no extras, and every fragment and section the
// text its row records ([IntegrityError]).
func Check(m *Manifest) error {
	if m.SchemaVersion != SchemaVersion {
		return ErrVersion
	}
	if len(m.Sources) != len(m.Fragments) {
		return ErrAlignment
	}
	for i, s := range m.Sources {
		if m.Fragments[i].ID != s.ID {
			return ErrAlignment
		}
	}
	return checkIntegrity(m)
}

// IntegrityError is a stored manifest whose recorded text disagrees with
// its own records: a fragment or section edited after it was written, or
// rows that cannot be (a missing file marked included). Rendering it would
// send text that no row accounts for.
type IntegrityError struct {
	// Where names the row or section ("sources[2] (project_agents)",
	// "sections[0] (files)").
	Where string
	Msg   string
}

func (e *IntegrityError) Error() string { return "invalid manifest: " + e.Where + ": " + e.Msg }

// checkIntegrity checks that every fragment and section is the text its
// row records: the BLAKE3 hash and the byte, character and line counts of
// an included row's fragment are its emitted ones; a row that is not
// included has an empty fragment; a missing or unreadable file is never
// included; a section's text has its recorded hash and sizes.
func checkIntegrity(m *Manifest) error {
	est, err := measure.EstimatorNamed(m.Estimator)
	if err != nil {
		return &IntegrityError{Where: "estimator", Msg: err.Error()}
	}
	// a text's tokens are counted again where that is cheap: always for
	// the fragments (instruction files are small), for files and sections
	// only with chars4 (an exact count of a large section takes seconds;
	// its hash and sizes are checked all the same)
	cheap := est.Name() == measure.Default().Name()
	redacted := map[string]bool{}
	for _, r := range m.Redactions {
		redacted[r.ID] = true
	}
	for i, s := range m.Sources {
		where := fmt.Sprintf("sources[%d] (%s)", i, s.ID)
		text := []byte(m.Fragments[i].Text)
		fail := func(msg string) error { return &IntegrityError{Where: where, Msg: msg} }
		if s.Included && s.Status != StatusAvailable {
			return fail(fmt.Sprintf("included, but its status is %s", s.Status))
		}
		if !s.Included {
			if len(text) > 0 {
				return fail("not included, but its fragment is not empty")
			}
			continue
		}
		if s.EmittedHash == nil || measure.Hash(text) != *s.EmittedHash {
			return fail("the fragment does not match its emitted_hash (edited after the manifest was written?)")
		}
		z := measure.Measure(text, est)
		if s.EmittedBytes != nil && *s.EmittedBytes != z.Bytes || s.EmittedChars != nil && *s.EmittedChars != z.Chars ||
			s.EmittedLines != nil && *s.EmittedLines != z.Lines {
			return fail("the fragment's sizes differ from its emitted sizes")
		}
		if s.EmittedTokens != nil && *s.EmittedTokens != z.Tokens {
			return fail(fmt.Sprintf("the fragment has %d tokens, not its emitted_tokens %d", z.Tokens, *s.EmittedTokens))
		}
		if redacted[s.ID] {
			continue // redaction changed the text: it is not a cut of the file's
		}
		// a fragment is the source, or a cut of it (a prefix)
		whole := s.SourceHash != nil && *s.SourceHash == *s.EmittedHash
		if s.Truncated == whole {
			return fail(fmt.Sprintf("truncated is %v, but the fragment is %s the source", s.Truncated, map[bool]string{true: "all of", false: "not all of"}[whole]))
		}
		if s.SourceBytes != nil && z.Bytes > *s.SourceBytes || s.SourceTokens != nil && z.Tokens > *s.SourceTokens {
			return fail("the fragment is larger than its source")
		}
	}
	seen := map[SectionID]bool{}
	for i, sec := range m.Sections {
		where := fmt.Sprintf("sections[%d] (%s)", i, sec.ID)
		if seen[sec.ID] {
			return &IntegrityError{Where: where, Msg: "a second section " + string(sec.ID)}
		}
		seen[sec.ID] = true
		text := []byte(sec.Text)
		if measure.Hash(text) != sec.Hash {
			return &IntegrityError{Where: where, Msg: "the text does not match its hash (edited after the manifest was written?)"}
		}
		var z measure.Sizes
		if cheap {
			z = measure.Measure(text, est)
		} else {
			z = measure.Measure(text, measure.Default())
			z.Tokens = sec.Tokens
		}
		if z.Bytes != sec.Bytes || z.Chars != sec.Chars || z.Lines != sec.Lines || z.Tokens != sec.Tokens {
			return &IntegrityError{Where: where, Msg: "the text's sizes differ from its recorded sizes"}
		}
	}
	// the files section holds exactly the blocks the file rows record
	blocks, ok := m.FileBlocks()
	if !ok {
		return &IntegrityError{Where: "files", Msg: "the files section does not hold the blocks its rows record"}
	}
	if len(blocks) > 0 && !seen[SectionFiles] {
		return &IntegrityError{Where: "files", Msg: "file rows record blocks, but there is no files section"}
	}
	if cheap {
		for _, b := range blocks {
			r := m.Files[b.Row]
			if n := est.Tokens([]byte(b.Text)); n != r.EmittedTokens {
				return &IntegrityError{Where: "files (" + r.Path + ")", Msg: fmt.Sprintf("the block has %d tokens, not its emitted_tokens %d", n, r.EmittedTokens)}
			}
		}
	}
	if h := m.History; h != nil {
		text := ""
		for _, sec := range m.Sections {
			if sec.ID == SectionHistory {
				text = sec.Text
			}
		}
		if measure.Hash([]byte(text)) != h.Hash {
			return &IntegrityError{Where: "history", Msg: "its hash does not match the history section"}
		}
		if (text == "") != (h.MessagesOut == 0) {
			return &IntegrityError{Where: "history", Msg: fmt.Sprintf("messages_out is %d, but the section is %s", h.MessagesOut, map[bool]string{true: "empty", false: "not empty"}[text == ""])}
		}
	}
	return nil
}

// jsonError adds the line and column to a JSON syntax or type error.
func jsonError(data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// Offset counts the offending byte: point at it
		off = max(se.Offset-1, 0)
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return fmt.Errorf("invalid manifest: %w", err)
	}
	line, col := 1, 1
	for _, c := range data[:min(int(off), len(data))] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Errorf("invalid manifest at line %d, column %d: %w", line, col, err)
}
