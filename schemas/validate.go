package schemas

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/message"
)

// Validator checks documents against one compiled schema. It is safe for
// concurrent use.
type Validator struct {
	schema *jsonschema.Schema
}

// NewManifestV1Validator compiles the version 1 manifest schema.
func NewManifestV1Validator() (*Validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(manifestV1))
	if err != nil {
		return nil, fmt.Errorf("failed to parse the manifest schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(ManifestV1ID, doc); err != nil {
		return nil, fmt.Errorf("failed to add the manifest schema: %w", err)
	}
	s, err := c.Compile(ManifestV1ID)
	if err != nil {
		return nil, fmt.Errorf("failed to compile the manifest schema: %w", err)
	}
	return &Validator{schema: s}, nil
}

// Validate checks the JSON document doc. A failure is a *ValidationError
// naming the first offending place.
func (v *Validator) Validate(doc []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("failed to parse the document: %w", err)
	}
	err = v.schema.Validate(inst)
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		leaf := ve
		for len(leaf.Causes) > 0 {
			leaf = leaf.Causes[0]
		}
		return &ValidationError{
			Location: "/" + strings.Join(leaf.InstanceLocation, "/"),
			Msg:      leaf.ErrorKind.LocalizedString(message.NewPrinter(message.MatchLanguage("en"))),
			Detail:   err.Error(),
		}
	}
	return err
}

// ValidationError is a document that does not match its schema.
type ValidationError struct {
	// Location is the JSON pointer of the first offending value ("/" for the root).
	Location string
	// Msg says what is wrong there.
	Msg string
	// Detail is the validator's full report.
	Detail string
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("does not match the schema at %s: %s", e.Location, e.Msg)
}
