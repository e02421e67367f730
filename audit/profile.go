package audit

import (
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
)

// profileFindings turns the issues of the manifest's agent profile into
// findings, in order: import_too_deep and advice-level over_agent_limit
// are info, the rest warnings.
func profileFindings(m *manifest.Manifest) []Finding {
	if m.Profile == nil {
		return nil
	}
	var out []Finding
	for _, is := range m.Profile.Issues {
		sev := Warning
		if is.Code == "import_too_deep" || is.Advice {
			sev = Info
		}
		out = append(out, Finding{SourceID: is.SourceID, Code: Code(is.Code), Severity: sev, RelatedID: is.Target})
	}
	return out
}

// nativeTotal sums what the agent loads by itself: the native rows that are
// available and meant for it, as much of each as the agent keeps (the
// profile's loaded sizes where it has them; a file its limit cuts to
// nothing is not counted); conditional files are counted apart.
func nativeTotal(m *manifest.Manifest) NativeTotal {
	var t NativeTotal
	prof := map[string]manifest.ProfileFile{}
	if m.Profile != nil {
		for _, f := range m.Profile.Files {
			prof[f.ID] = f
		}
	}
	for _, s := range m.Sources {
		if s.Delivery != discover.DeliveryNative || s.Status != manifest.StatusAvailable || !s.AudienceMatches {
			continue
		}
		if f, ok := prof[s.ID]; ok {
			if f.Condition != "" {
				t.Conditional++
				continue
			}
			if f.LoadedBytes == 0 {
				// the agent's own limit leaves nothing of it
				continue
			}
			t.Files++
			t.Bytes += f.LoadedBytes
			t.Tokens += f.LoadedTokens
			continue
		}
		t.Files++
		if s.SourceBytes != nil {
			t.Bytes += *s.SourceBytes
		}
		if s.SourceTokens != nil {
			t.Tokens += *s.SourceTokens
		}
	}
	return t
}
