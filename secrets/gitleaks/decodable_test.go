package gitleaks

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect/codec"

	"github.com/ctxaudit/ctx/internal/testlane"
)

// segments is how many encoded segments gitleaks' decoder finds in text
// at its first pass.
func segments(text string) int {
	_, found := codec.NewDecoder().Decode(text, nil)
	return len(found)
}

// decodable is false only where the decoder finds no segment, and true
// where a text holds one of each encoding, or something that may start a
// match other than a base64 run.
func TestDecodable(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"", false},
		{"func main() { fmt.Println(\"hello\") }\n", false},
		{`import "crypto/internal/fips140/sha256"`, false}, // a long run that decodes to bytes, not text
		{"TestScanStopsWhenCancelled(t)", false},           // no digit or + / - _: not tried
		{"R0lUSFVCX1RPS0VOPWdocF9SOGZKcTJM", true},         // base64 of text
		{"R0lUSFVCX1RPS0VOPWdocF9SOGZKcTI=", true},         // with its padding
		{"x := R0lUSFVCX1RPS0VOPWdocF9SOGZK\n", true},
		{"%61%70%69", true},
		{"a=%41 b", true},
		{"fmt.Sprintf(\"%02x\", b)", false},                // \x02 is not printable: no segment
		{"fmt.Printf(\"%3d %02x\", n, b)", false},          // one match to the last escape, which decodes to nothing
		{"fmt.Printf(\"%3d %5d\", n, m)", true},            // "=" and "]"
		{"%02x R0lUSFVCX1RPS0VOPWdocF9SOGZKcTJM", true},    // after the percent match
		{"%02x %41R0lUSFVCX1RPS0VOPWdocF9SOGZKcTJM", true}, // after it, without the escape's digits
		{"%02x %41 R0lUSFVCX1RPS0VOPWdocF9SOGZKcTJM", true},
		{"%02x\nR0lUSFVCX1RPS0VOPWdocF9SOGZKcTJM", true}, // another line
		{"U+0041 U+0042", true},
		{`"\u0074\u006f"`, true},
		{"68656c6c6f20776f726c642121212121", true},                                  // 32 hex digits of text
		{"6fe4476ee5a1832882e326b506d14126", false},                                 // of bytes
		{"68656c6c6f20776f726c6421212121212", false},                                // 33 digits, then a run of one
		{"68656c6c6f20776f726c642121212121zR0lUSFVCX1RPS0VOPWdocF9SOGZKcTJM", true}, // base64 after the hex
		{"%6", false},
		{"U+004", false},
	} {
		got := decodable(tc.text)
		if got != tc.want {
			t.Errorf("decodable(%q) = %v, want %v", tc.text, got, tc.want)
		}
		if !got && segments(tc.text) > 0 {
			t.Errorf("decodable(%q) = false, but the decoder finds %d segments", tc.text, segments(tc.text))
		}
	}
}

// On real code (this repository's Go files and testdata, windowed as a
// scan windows them), decodable is never false where the decoder finds a
// segment, and it is false for most windows.
func TestDecodableOnCode(t *testing.T) {
	testlane.Heavy(t, "windows every file of the repository; decodable has no concurrency")
	var files []string
	for _, g := range []string{"../../*/*.go", "../../*/*/*.go", "../../*/testdata/*", "../../docs/*.md"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	windowsSeen, flat := 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a directory
		}
		text := string(b)
		for _, w := range windows(text) {
			frag := text[w[0]:w[1]]
			windowsSeen++
			if decodable(frag) {
				continue
			}
			flat++
			if n := segments(frag); n > 0 {
				t.Fatalf("%s [%d:%d]: decodable is false, the decoder finds %d segments", f, w[0], w[1], n)
			}
		}
	}
	if windowsSeen < 100 || flat < windowsSeen/2 {
		t.Errorf("%d windows, %d without anything to decode: want most of at least 100", windowsSeen, flat)
	}
}

// FuzzDecodable: decodable is never false where the decoder finds a
// segment. The seeds and the random texts are made of the characters of
// the encodings.
func FuzzDecodable(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "aAfFgGzZuU0123456789_/+-=%%%\\ \n\t\"'.:R0lUSFVCX1RPS0VO6c2"
	for range 200 {
		var b strings.Builder
		for range r.IntN(80) {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		f.Add(b.String())
	}
	f.Add("R0lUSFVCX1RPS0VOPWdocF9SOGZKcTJM")
	f.Add("R0lUSFVCX1RPS0VOPWdocF9SOGZKcTI==x")
	f.Add("=R0lUSFVCX1RPS0VOPWdocF9SOGZKcTI=")
	f.Add("%2")
	f.Add("\\\\u0041")
	f.Add("ZGVhZGJlZWZkZWFkYmVlZmRlYWRiZWVmZGVhZGJlZWY=")
	f.Fuzz(func(t *testing.T, text string) {
		if !decodable(text) {
			if n := segments(text); n > 0 {
				t.Fatalf("decodable(%q) = false, the decoder finds %d segments", text, n)
			}
		}
	})
}
