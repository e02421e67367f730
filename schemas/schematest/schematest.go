// Package schematest validates documents against the embedded ctx JSON
// Schemas in tests. It is the one helper every test that produces a manifest
// uses, so that no manifest escapes the schema.
package schematest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ctxaudit/ctx/schemas"
)

// CheckManifest validates the JSON document doc against the version 1
// manifest schema.
func CheckManifest(doc []byte) error {
	v, err := schemas.NewManifestV1Validator()
	if err != nil {
		return err
	}
	if err := v.Validate(doc); err != nil {
		var ve *schemas.ValidationError
		if errors.As(err, &ve) {
			return fmt.Errorf("%w\n%s", err, ve.Detail)
		}
		return err
	}
	return nil
}

// CheckObservation validates the JSON document doc against the version 1
// observation schema.
func CheckObservation(doc []byte) error {
	v, err := schemas.NewObservationV1Validator()
	if err != nil {
		return err
	}
	if err := v.Validate(doc); err != nil {
		var ve *schemas.ValidationError
		if errors.As(err, &ve) {
			return fmt.Errorf("%w\n%s", err, ve.Detail)
		}
		return err
	}
	return nil
}

// Manifest fails tb unless doc validates against the version 1 manifest
// schema.
func Manifest(tb testing.TB, doc []byte) {
	tb.Helper()
	if err := CheckManifest(doc); err != nil {
		tb.Fatalf("manifest does not validate against schemas/manifest.v1.schema.json: %v\n%s", err, doc)
	}
}

// SourceFields are the 36 fields of a manifest source row, in the
// reference's order.
var SourceFields = []string{
	"id", "kind", "order", "requested_path", "path", "canonical_path", "audience", "delivery", "origin", "scope",
	"config_path", "native_evidence", "status", "included", "reason", "duplicate_of", "equivalent_to", "equivalence",
	"audience_matches", "source_bytes", "source_chars", "source_lines", "source_tokens", "source_hash", "hash_algorithm",
	"emitted_bytes", "emitted_chars", "emitted_lines", "emitted_tokens", "emitted_hash",
	"truncated", "budget", "max_chars", "max_lines", "omitted_chars", "omitted_lines",
}
