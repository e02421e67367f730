package schemas_test

import (
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/schemas/schematest"
)

// TestPathsMarker: the optional top-level paths is "relative" or absent.
func TestPathsMarker(t *testing.T) {
	t.Parallel()
	doc := `{"schema_version": 1, "tool": {"name": "ctx", "version": "0.1.0"}, "agent": "a", "project_dir": ".",
		"estimator": "e", "budgets": {}, "sources": [], "fragments": {}, "paths": "relative"}`
	if err := schematest.CheckManifest([]byte(doc)); err != nil {
		t.Errorf("a relative manifest does not validate: %v", err)
	}
	for _, bad := range []string{`"absolute"`, `""`, `true`, `null`} {
		if schematest.CheckManifest([]byte(strings.Replace(doc, `"relative"`, bad, 1))) == nil {
			t.Errorf("the schema accepts paths %s", bad)
		}
	}
}
