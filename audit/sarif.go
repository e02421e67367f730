package audit

import (
	"bytes"
	"net/url"
	"path/filepath"

	"github.com/ctxaudit/ctx/internal/jsonenc"
	"github.com/ctxaudit/ctx/internal/version"
)

// SARIF 2.1.0 (OASIS), the subset ctx writes: one run, the tool's rules
// (one per finding code), and a result per finding with one location.

// SARIFSchema is the JSON Schema URI that SARIF output names in "$schema".
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// SARIFRootID is the uriBaseId of every location in SARIF output: the
// directory of [WriteOptions.Root]. The run's originalUriBaseIds describes
// it without its absolute URI, which would differ from machine to machine
// (code scanning takes it for the checkout).
const SARIFRootID = "%SRCROOT%"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                `json:"tool"`
	OriginalURIBaseIDs map[string]sarifRootBase `json:"originalUriBaseIds"`
	Results            []sarifResult            `json:"results"`
}

// sarifRootBase is the artifactLocation of a uriBaseId in
// originalUriBaseIds: a description only (SARIF 2.1.0, 3.14.14: without a
// uri, the producer does not say where the root was).
type sarifRootBase struct {
	Description sarifMessage `json:"description"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name    string      `json:"name"`
	Version string      `json:"version"`
	Rules   []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifMessage `json:"shortDescription"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID     string            `json:"ruleId"`
	RuleIndex  int               `json:"ruleIndex"`
	Level      string            `json:"level"`
	Message    sarifMessage      `json:"message"`
	Locations  []sarifLocation   `json:"locations"`
	Properties map[string]string `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// writeSARIF writes rep as a SARIF 2.1.0 log, one result per problem
// ([locator.ciFindings]), paths relative to %SRCROOT%. Every result has a location,
// as GitHub code scanning requires (it rejects the whole log otherwise):
// the finding's file, else the configuration file, else ctx.toml in the
// project directory (where the setting would go).
func writeSARIF(b *bytes.Buffer, rep *Report, o WriteOptions) error {
	l := newLocator(rep, o)
	fallback := l.config
	if fallback == "" && rep.Manifest != nil {
		fallback = l.rel(filepath.Join(rep.Manifest.ProjectDir, "ctx.toml"))
	}
	if fallback == "" {
		fallback = "ctx.toml"
	}
	driver := sarifDriver{Name: "ctx", Version: version.Version, Rules: []sarifRule{}}
	index := map[Code]int{}
	addRule := func(c Code, summary string) {
		index[c] = len(driver.Rules)
		driver.Rules = append(driver.Rules, sarifRule{ID: string(c), ShortDescription: sarifMessage{Text: summary}})
	}
	for _, r := range Rules() {
		addRule(r.Code, r.Summary)
	}
	run := sarifRun{Results: []sarifResult{},
		OriginalURIBaseIDs: map[string]sarifRootBase{SARIFRootID: {Description: sarifMessage{Text: "The root of the repository that holds the project."}}}}
	nm := repoNames(rep, l, o.home())
	for _, lf := range l.ciFindings() {
		f := lf.f
		if _, ok := index[f.Code]; !ok {
			addRule(f.Code, string(f.Code))
		}
		level := map[Severity]string{Error: "error", Warning: "warning"}[f.Severity]
		if level == "" {
			level = "note"
		}
		loc := lf.loc
		if loc.path == "" {
			loc = location{path: fallback}
		}
		phys := sarifPhysical{ArtifactLocation: sarifArtifact{URI: uriOf(loc.path), URIBaseID: SARIFRootID}}
		if loc.line > 0 {
			phys.Region = &sarifRegion{StartLine: loc.line}
		}
		res := sarifResult{RuleID: string(f.Code), RuleIndex: index[f.Code], Level: level,
			Message: sarifMessage{Text: findingText(f, nm)}, Locations: []sarifLocation{{PhysicalLocation: phys}}}
		if f.SourceID != "" || f.RelatedID != "" {
			// as the message shows them: no absolute path of the machine
			res.Properties = map[string]string{}
			if f.SourceID != "" {
				res.Properties["sourceId"] = nm.id(f.SourceID)
			}
			if f.RelatedID != "" {
				res.Properties["relatedId"] = nm.related(f.RelatedID)
			}
		}
		run.Results = append(run.Results, res)
	}
	run.Tool = sarifTool{Driver: driver}
	return jsonenc.Write(b, sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}})
}

// uriOf is a relative path as a URI reference: escaped, and with "./" in
// front of a first segment that has a colon (it would read as a scheme).
func uriOf(p string) string {
	return (&url.URL{Path: p}).String()
}
