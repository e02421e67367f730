package measure_test

import (
	"fmt"

	"github.com/ctxaudit/ctx/measure"
)

// Measure text the way manifests do: code points, physical lines (a final
// "\n" ends the last line), ceiling(chars / 4) tokens, and a BLAKE3 digest.
func ExampleMeasure() {
	text := []byte("café\r\nnext\n")
	fmt.Printf("%+v\n", measure.Measure(text, measure.Default()))
	fmt.Println(measure.HashAlgorithm, measure.Hash(nil))
	// Output:
	// {Bytes:12 Chars:11 Lines:2 Tokens:3}
	// blake3 af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262
}
