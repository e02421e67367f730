// Package schemas embeds the JSON Schemas of the documents ctx writes.
//
// A published schema file is never edited in place except for compatible
// additions (new optional fields); an incompatible change gets a new
// schema_version and a new file.
package schemas

import _ "embed"

//go:embed manifest.v1.schema.json
var manifestV1 []byte

// ManifestV1 returns the JSON Schema of schema_version 1 manifests.
func ManifestV1() []byte { return append([]byte(nil), manifestV1...) }

// ManifestV1ID is the $id of the version 1 manifest schema.
const ManifestV1ID = "https://ctxaudit.github.io/schemas/manifest.v1.schema.json"

//go:embed observation.v1.schema.json
var observationV1 []byte

// ObservationV1 returns the JSON Schema of schema_version 1 observation
// records (ctx observe -o).
func ObservationV1() []byte { return append([]byte(nil), observationV1...) }

// ObservationV1ID is the $id of the version 1 observation schema.
const ObservationV1ID = "https://ctxaudit.github.io/schemas/observation.v1.schema.json"
