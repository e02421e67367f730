package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/schemas"
)

// The resource URIs.
const (
	// ManifestURI is the project's manifest, as `ctx manifest --redact`
	// prints it.
	ManifestURI = "ctx://manifest"
	// SchemaURI is the manifest JSON Schema, as `ctx schema` prints it.
	SchemaURI = "ctx://schemas/manifest.v1.schema.json"
)

func (s *server) addResources(srv *mcp.Server) {
	srv.AddResource(&mcp.Resource{URI: ManifestURI, Name: "manifest", Title: "The context manifest",
		Description: "Every instruction source, aggregated file and history of this project with its decision, sizes and BLAKE3 hashes, as `ctx manifest --redact` prints it (built when read; credentials in the text are replaced by [REDACTED:rule], and \"redactions\" lists each).",
		MIMEType:    "application/json"}, s.manifestResource)
	srv.AddResource(&mcp.Resource{URI: SchemaURI, Name: "manifest-schema", Title: "The manifest JSON Schema",
		Description: "The JSON Schema (2020-12) of the manifest, schema_version 1, as `ctx schema` prints it.",
		MIMEType:    "application/schema+json"}, s.schemaResource)
}

func (s *server) manifestResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	p, err := s.load()
	if err != nil {
		return nil, err
	}
	sc, err := p.Config.RedactScanner()
	if err != nil {
		return nil, err
	}
	o := p.ManifestOptions()
	s.withCache(&o)
	// a resource takes no arguments: its text is always redacted, and the
	// manifest's "redactions" say what was replaced
	o.Redact, o.Scanner = true, sc
	m, err := manifest.Build(ctx, o)
	if err != nil {
		return nil, err
	}
	data, err := manifest.Marshal(m)
	if err != nil {
		return nil, err
	}
	res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: ManifestURI, MIMEType: "application/json", Text: string(data)}}}
	// a resource has no error result: a manifest that is too large to
	// send is a protocol error that says so, never a cut document
	wire, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	if len(wire) > MaxResultBytes {
		return nil, fmt.Errorf("the manifest is %d bytes as sent, over the %d that one result may carry: ask the audit or stats tool, or write it with ctx manifest -o FILE", len(wire), MaxResultBytes)
	}
	return res, nil
}

func (s *server) schemaResource(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: SchemaURI, MIMEType: "application/schema+json", Text: string(schemas.ManifestV1())}}}, nil
}
