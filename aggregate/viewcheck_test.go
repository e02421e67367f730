package aggregate

import "testing"

func TestCheckView(t *testing.T) {
	for _, tc := range []struct {
		f    FileItem
		fail bool
	}{
		{FileItem{}, false},
		{FileItem{ViewMode: ViewFull}, false},
		{FileItem{ViewMode: ViewCustom}, false}, // falls back to the summary, as in the seed
		{FileItem{ViewMode: ViewMasked}, true},
		{FileItem{ViewMode: ViewMasked, ASTMask: map[string]MaskMode{"f": MaskSig}}, false},
		{FileItem{ViewMode: ViewMasked, ASTSignatures: true}, false},
		{FileItem{ViewMode: ViewMasked, ASTDefinitions: true}, false},
	} {
		if err := tc.f.CheckView(); (err != nil) != tc.fail {
			t.Errorf("%+v: CheckView() = %v, want failure %v", tc.f, err, tc.fail)
		}
	}
}
