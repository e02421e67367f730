package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/internal/jsonenc"
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
func Marshal(m *Manifest) ([]byte, error) {
	return jsonenc.Indent(m)
}

// Decode reads a manifest strictly: the schema version is read first and must
// be 1, the document must match the version 1 JSON Schema (every field
// present and of its type, no unknown fields), and the result is checked
// with [Check].
func Decode(r io.Reader) (*Manifest, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxManifestBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxManifestBytes {
		return nil, fmt.Errorf("manifest larger than %d bytes", MaxManifestBytes)
	}
	return decode(data)
}

func decode(data []byte) (*Manifest, error) {
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

// Check verifies that m can be rendered: version 1, and one fragment per
// source id in the same order, with no extras.
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
