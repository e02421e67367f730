package measure

import (
	"strings"
	"testing"
)

func TestMeasure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want Sizes
	}{
		{"empty", "", Sizes{Bytes: 0, Chars: 0, Lines: 0, Tokens: 0}},
		{"newline", "\n", Sizes{Bytes: 1, Chars: 1, Lines: 1, Tokens: 1}},
		{"blank last line", "a\n\n", Sizes{Bytes: 3, Chars: 3, Lines: 2, Tokens: 1}},
		{"no final newline", "a\nb", Sizes{Bytes: 3, Chars: 3, Lines: 2, Tokens: 1}},
		{"crlf", "a\r\nb\r\n", Sizes{Bytes: 6, Chars: 6, Lines: 2, Tokens: 2}},
		{"multibyte crlf", "café\r\nnext\n", Sizes{Bytes: 12, Chars: 11, Lines: 2, Tokens: 3}},
		{"four chars", "abcd", Sizes{Bytes: 4, Chars: 4, Lines: 1, Tokens: 1}},
		{"five chars", "abcde", Sizes{Bytes: 5, Chars: 5, Lines: 1, Tokens: 2}},
		{"emoji", "😀😀😀😀😀", Sizes{Bytes: 20, Chars: 5, Lines: 1, Tokens: 2}},
		{"lone cr", "a\rb", Sizes{Bytes: 3, Chars: 3, Lines: 1, Tokens: 1}},
		{"bom", "\ufeffx\n", Sizes{Bytes: 5, Chars: 3, Lines: 1, Tokens: 1}},
		// an invalid byte counts as one character
		{"invalid utf8", "a\xffb", Sizes{Bytes: 3, Chars: 3, Lines: 1, Tokens: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Measure([]byte(tt.text), nil); got != tt.want {
				t.Errorf("Measure(%q, nil) = %+v, want %+v", tt.text, got, tt.want)
			}
			if got := Measure([]byte(tt.text), Default()); got != tt.want {
				t.Errorf("Measure(%q, Default()) = %+v, want %+v", tt.text, got, tt.want)
			}
			if got := Lines([]byte(tt.text)); got != tt.want.Lines {
				t.Errorf("Lines(%q) = %d, want %d", tt.text, got, tt.want.Lines)
			}
			if got := Chars([]byte(tt.text)); got != tt.want.Chars {
				t.Errorf("Chars(%q) = %d, want %d", tt.text, got, tt.want.Chars)
			}
		})
	}
}

// byteCount counts a token per byte: an estimator Measure knows nothing of.
type byteCount struct{}

func (byteCount) Name() string           { return "bytes" }
func (byteCount) Tokens(text []byte) int { return len(text) }

// Measure counts the characters once and derives chars4's tokens from
// them; any other estimator counts the text itself.
func TestMeasureEstimators(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"", "a", "café\r\nnext\n", "a\xffb\n\n", strings.Repeat("😀 x\n", 1000)} {
		b := []byte(text)
		if got, want := Measure(b, CharsDiv4{}).Tokens, (CharsDiv4{}).Tokens(b); got != want {
			t.Errorf("Measure(%q, CharsDiv4).Tokens = %d, want %d", text, got, want)
		}
		if got := Measure(b, byteCount{}); got.Tokens != len(b) || got.Chars != Chars(b) || got.Lines != Lines(b) {
			t.Errorf("Measure(%q, byteCount) = %+v", text, got)
		}
	}
}

func TestEstimatorName(t *testing.T) {
	t.Parallel()
	const want = "ceiling(characters / 4), version 1"
	if got := Default().Name(); got != want {
		t.Errorf("Default().Name() = %q, want %q", got, want)
	}
	if _, ok := Default().(CharsDiv4); !ok {
		t.Errorf("Default() is %T, want CharsDiv4", Default())
	}
}

// TestHashVectors checks [Hash] against the official BLAKE3 test vectors
// (BLAKE3-team/BLAKE3 test_vectors/test_vectors.json, "hash" field, first 32
// bytes). The input of length n is the bytes i % 251 for i in [0, n).
func TestHashVectors(t *testing.T) {
	t.Parallel()
	vectors := []struct {
		n    int
		want string
	}{
		{0, "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"},
		{1, "2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213"},
		{1023, "10108970eeda3eb932baac1428c7a2163b0e924c9a9e25b35bba72b28f70bd11"},
		{1024, "42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af7"},
		{1025, "d00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444"},
		{2048, "e776b6028c7cd22a4d0ba182a8bf62205d2ef576467e838ed6f2529b85fba24a"},
		{4096, "015094013f57a5277b59d8475c0501042c0b642e531b0a1c8f58d2163229e969"},
	}
	for _, v := range vectors {
		in := make([]byte, v.n)
		for i := range in {
			in[i] = byte(i % 251)
		}
		if got := Hash(in); got != v.want {
			t.Errorf("Hash(input_len %d) = %s, want %s", v.n, got, v.want)
		}
		if got := Sum(in).String(); got != v.want {
			t.Errorf("Sum(input_len %d) = %s, want %s", v.n, got, v.want)
		}
	}
	if HashAlgorithm != "blake3" {
		t.Errorf("HashAlgorithm = %q, want blake3", HashAlgorithm)
	}
}

func TestHashIsLowercaseHex(t *testing.T) {
	t.Parallel()
	h := Hash([]byte("café\r\nnext\n"))
	if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
		t.Errorf("Hash = %q, want 64 lowercase hex digits", h)
	}
}
