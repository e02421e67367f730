package manifest

import "testing"

func TestCheckSize(t *testing.T) {
	if err := checkSize(MaxManifestBytes); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	if err := checkSize(MaxManifestBytes + 1); err == nil {
		t.Error("over the limit: no error")
	}
}
