package secrets

import (
	"bytes"
	"context"
	"io"
	"sync"
)

// maxLine bounds what a [LineWriter] holds back waiting for a newline: a
// longer run is redacted and written as it is.
const maxLine = 1 << 20

// LineWriter writes what it is given to another writer a line at a time,
// with the credentials its scanner finds in each line replaced
// ([Redact]). It is the last filter of an output whose every string must
// be clean (file names, ids, warnings), whatever produced it; a
// credential split across lines is the producer's to redact. Call
// [LineWriter.Flush] at the end for a last line without a newline. It is
// safe for concurrent use.
type LineWriter struct {
	ctx context.Context
	w   io.Writer
	sc  Scanner
	mu  sync.Mutex
	buf []byte
}

// NewLineWriter returns a LineWriter that writes to w what sc leaves of
// each line; ctx bounds the scans.
func NewLineWriter(ctx context.Context, w io.Writer, sc Scanner) *LineWriter {
	return &LineWriter{ctx: ctx, w: w, sc: sc}
}

// Write holds p until its lines are complete and writes each one
// redacted. It returns len(p) unless a scan or the write fails.
func (l *LineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	held := len(l.buf)
	l.buf = append(l.buf, p...)
	end := 0
	if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
		end = held + i + 1 // only p is searched: the held part has no newline
	} else if len(l.buf) > maxLine {
		end = len(l.buf)
	}
	if end == 0 {
		return len(p), nil
	}
	err := l.emit(l.buf[:end])
	// what was given to emit is gone, written or not: never written twice
	l.buf = append(l.buf[:0], l.buf[end:]...)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held back (a last line without a newline).
func (l *LineWriter) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) == 0 {
		return nil
	}
	err := l.emit(l.buf)
	l.buf = l.buf[:0]
	return err
}

// Unwrap returns the writer it writes to.
func (l *LineWriter) Unwrap() io.Writer { return l.w }

func (l *LineWriter) emit(b []byte) error {
	text, _, err := l.sc.Redact(l.ctx, "", string(b))
	if err != nil {
		return err
	}
	_, err = io.WriteString(l.w, text)
	return err
}
