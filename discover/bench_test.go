package discover

import (
	"context"
	"fmt"
	"testing"

	"github.com/ctxaudit/ctx/internal/testfs"
)

// BenchmarkSources lists 100, 1,000 and 10,000 extra sources (half files,
// whose paths are made canonical, half texts) after the discovered ones.
//
//	go test -run '^$' -bench Sources ./discover
func BenchmarkSources(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		dir, srcs := testfs.Sources(b, n)
		extras := make([]Extra, len(srcs))
		for i, s := range srcs {
			extras[i] = Extra{ID: s.ID, Kind: s.Kind}
			if s.Path != "" {
				extras[i].Path = &s.Path
			} else {
				extras[i].Text = &s.Text
			}
		}
		opts := Options{Agent: "a", ProjectDir: dir, Home: dir, SharedMode: SharedDisabled, Extras: extras}
		b.Run(fmt.Sprintf("sources=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Sources(context.Background(), opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
