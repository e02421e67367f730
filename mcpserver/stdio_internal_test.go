package mcpserver

import (
	"io"
	"runtime"
	"strings"
	"testing"
)

// repeatReader yields n bytes of c and then tail, without allocating.
type repeatReader struct {
	c    byte
	n    int64
	tail *strings.Reader
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return r.tail.Read(p)
	}
	if int64(len(p)) > r.n {
		p = p[:r.n]
	}
	for i := range p {
		p[i] = r.c
	}
	r.n -= int64(len(p))
	return len(p), nil
}

// A line over the limit is read to its end and skipped with memory of
// the order of the limit, not of the line: 64 MiB pass through a reader
// of 1 KiB lines with less than 1 MiB allocated. The lines around it
// come whole, line ends removed.
func TestLineReaderSkipsLongLines(t *testing.T) {
	const long = 64 << 20
	r := newLineReader(io.MultiReader(strings.NewReader("first\r\n"),
		&repeatReader{c: 'x', n: long, tail: strings.NewReader("\nsecond\nlast")}), 1024)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var got []string
	var skipped []int64
	for {
		line, n, err := r.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			skipped = append(skipped, n)
			continue
		}
		got = append(got, string(line))
	}
	runtime.ReadMemStats(&after)
	if strings.Join(got, "|") != "first|second|last" || len(skipped) != 1 || skipped[0] != long+1 {
		t.Errorf("lines %q, skipped %v", got, skipped)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("%d bytes allocated to skip a line of %d", alloc, long)
	}
}

// A line of exactly the limit is a line; one byte more is skipped.
func TestLineReaderLimit(t *testing.T) {
	r := newLineReader(strings.NewReader(strings.Repeat("a", 10)+"\r\n"+strings.Repeat("b", 11)+"\n"), 10)
	line, n, err := r.next()
	if string(line) != strings.Repeat("a", 10) || n != 0 || err != nil {
		t.Errorf("a line of the limit: %q, %d, %v", line, n, err)
	}
	if line, n, err = r.next(); line != nil || n != 12 || err != nil {
		t.Errorf("a line over the limit: %q, %d, %v", line, n, err)
	}
	if _, _, err = r.next(); err != io.EOF {
		t.Errorf("after the last line: %v", err)
	}
}

func TestTooDeep(t *testing.T) {
	for _, tc := range []struct {
		data string
		want bool
	}{
		{`[[[]]]`, false},
		{`[[[[]]]]`, true},
		{`{"a":{"b":{"c":1}}}`, false},
		{`{"a":"[[[[[[[["}`, false},
		{`{"a":"\"[[[[[[[[["}`, false},
		{`[[[[`, true},
	} {
		if got := tooDeep([]byte(tc.data), 3); got != tc.want {
			t.Errorf("tooDeep(%s, 3) = %v", tc.data, got)
		}
	}
}
