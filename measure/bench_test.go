package measure_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/ctxaudit/ctx/measure"
)

// code returns about 100 KB of this repository's Go code (the first files
// in path order), for the benchmarks.
func code(b *testing.B) []byte {
	b.Helper()
	files, err := filepath.Glob("../*/*.go")
	if err != nil {
		b.Fatal(err)
	}
	sort.Strings(files)
	var out []byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, data...)
		if len(out) >= 100_000 {
			return out[:100_000]
		}
	}
	b.Fatalf("only %d bytes of code", len(out))
	return nil
}

// BenchmarkTokens counts ~100 KB of Go code with each estimator (the
// vocabulary is loaded before the timer starts). Besides MB/s of wall time
// it reports MB/cpu-s, the megabytes counted per second of the process's
// CPU time (user and system, the garbage collector's included), which a
// shared machine's load does not inflate as it does wall time.
//
//	go test -run '^$' -bench Tokens ./measure
func BenchmarkTokens(b *testing.B) {
	text := code(b)
	for _, name := range measure.EstimatorNames() {
		est, _ := measure.ParseEstimator(name)
		est.Tokens([]byte("load"))
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			cpu := cpuTime()
			for b.Loop() {
				est.Tokens(text)
			}
			if s := (cpuTime() - cpu).Seconds(); s > 0 {
				b.ReportMetric(float64(len(text))*float64(b.N)/1e6/s, "MB/cpu-s")
			}
		})
	}
}

// cpuTime returns the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTokenPrefix cuts the same code to half of its tokens.
func BenchmarkTokenPrefix(b *testing.B) {
	text := code(b)
	for _, name := range measure.EstimatorNames() {
		est, _ := measure.ParseEstimator(name)
		half := est.Tokens(text) / 2
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				measure.TokenPrefix(est, text, half)
			}
		})
	}
}

// BenchmarkMeasure measures the same code's bytes, characters, lines and
// chars4 tokens (Measure counts the characters once).
func BenchmarkMeasure(b *testing.B) {
	text := code(b)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		measure.Measure(text, nil)
	}
}

// BenchmarkHash hashes the same code with BLAKE3, and 16 copies of it.
func BenchmarkHash(b *testing.B) {
	text := code(b)
	for _, n := range []int{1, 16} {
		in := bytes.Repeat(text, n)
		b.Run(fmt.Sprintf("%dKB", len(in)/1000), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				measure.Sum(in)
			}
		})
	}
}
