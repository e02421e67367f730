package schemas

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

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
	return newValidator("manifest", ManifestV1ID, manifestV1)
}

// NewObservationV1Validator compiles the version 1 observation schema.
func NewObservationV1Validator() (*Validator, error) {
	return newValidator("observation", ObservationV1ID, observationV1)
}

func newValidator(what, id string, schema []byte) (*Validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("failed to parse the %s schema: %w", what, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(id, doc); err != nil {
		return nil, fmt.Errorf("failed to add the %s schema: %w", what, err)
	}
	s, err := c.Compile(id)
	if err != nil {
		return nil, fmt.Errorf("failed to compile the %s schema: %w", what, err)
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

var observationValidator = sync.OnceValues(NewObservationV1Validator)

// CheckObservation validates an observation record (ctx observe -o)
// against the version 1 observation schema.
func CheckObservation(doc []byte) error {
	v, err := observationValidator()
	if err != nil {
		return err
	}
	return v.Validate(doc)
}
