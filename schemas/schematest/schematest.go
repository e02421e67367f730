// Package schematest validates documents against the embedded ctx JSON
// Schemas in tests. It is the one helper every test that produces a manifest
// uses, so that no manifest escapes the schema.
package schematest

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ctxaudit/ctx/schemas"
)

var (
	once     sync.Once
	compiled *jsonschema.Schema
	compErr  error
)

// ManifestV1 returns the compiled schema_version 1 manifest schema.
func ManifestV1() (*jsonschema.Schema, error) {
	once.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemas.ManifestV1()))
		if err != nil {
			compErr = fmt.Errorf("failed to parse the manifest schema: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(schemas.ManifestV1ID, doc); err != nil {
			compErr = fmt.Errorf("failed to add the manifest schema: %w", err)
			return
		}
		compiled, compErr = c.Compile(schemas.ManifestV1ID)
	})
	return compiled, compErr
}

// CheckManifest validates the JSON document doc against the version 1
// manifest schema.
func CheckManifest(doc []byte) error {
	sch, err := ManifestV1()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("failed to parse the manifest: %w", err)
	}
	return sch.Validate(inst)
}

// Manifest fails tb unless doc validates against the version 1 manifest
// schema.
func Manifest(tb testing.TB, doc []byte) {
	tb.Helper()
	if err := CheckManifest(doc); err != nil {
		tb.Fatalf("manifest does not validate against schemas/manifest.v1.schema.json: %v\n%s", err, doc)
	}
}
