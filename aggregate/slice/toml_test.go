package slice

import (
	"reflect"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// The inline table decodes again to the slice, whatever its tag, comment
// and anchor lines hold.
func TestTOML(t *testing.T) {
	src := []byte("before \"quoted\"\n\tdef f(): # \\ back\n    return 'x'\nafter\n")
	s, err := New(src, 2, 3, `a "tag"`, "line one\nline two")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Slices []struct {
			StartLine   int    `toml:"start_line"`
			EndLine     int    `toml:"end_line"`
			Tag         string `toml:"tag"`
			Comment     string `toml:"comment"`
			ContentHash string `toml:"content_hash"`
			AnchorLines struct {
				Before []string `toml:"before"`
				After  []string `toml:"after"`
			} `toml:"anchor_lines"`
			Fingerprint string `toml:"fingerprint"`
		} `toml:"s"`
	}
	doc := "s = [" + s.TOML() + "]\n"
	if err := toml.Unmarshal([]byte(doc), &got); err != nil {
		t.Fatalf("%v in\n%s", err, doc)
	}
	if len(got.Slices) != 1 {
		t.Fatalf("got %d slices", len(got.Slices))
	}
	g := got.Slices[0]
	back := Slice{StartLine: g.StartLine, EndLine: g.EndLine, Tag: g.Tag, Comment: g.Comment, ContentHash: g.ContentHash,
		AnchorLines: Anchors{Before: g.AnchorLines.Before, After: g.AnchorLines.After}, Fingerprint: g.Fingerprint}
	if !reflect.DeepEqual(back, s) {
		t.Errorf("decoded %+v, want %+v", back, s)
	}
}
