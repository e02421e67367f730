package format_test

import (
	"fmt"
	"testing"

	"github.com/ctxaudit/ctx/format"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		allowed []format.Format
		want    format.Format
		err     string
	}{
		{"json", []format.Format{format.Table, format.JSON}, format.JSON, ""},
		{"table", []format.Format{format.Table}, format.Table, ""},
		{"yaml", []format.Format{format.Table, format.JSON}, "", `must be table or json, not "yaml"`},
		{"JSON", []format.Format{format.Table, format.Markdown, format.JSON}, "", `must be table, markdown or json, not "JSON"`},
		{"", []format.Format{format.Table}, "", `must be table, not ""`},
		{"sarif", nil, "", `must be nothing, not "sarif"`},
	} {
		got, err := format.Parse(tc.in, tc.allowed...)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got != tc.want || msg != tc.err {
			t.Errorf("Parse(%q, %v) = %q, %q; want %q, %q", tc.in, tc.allowed, got, msg, tc.want, tc.err)
		}
	}
}

func ExampleParse() {
	f, err := format.Parse("json", format.Table, format.JSON)
	fmt.Println(f, err)
	_, err = format.Parse("yaml", format.Table, format.Markdown, format.JSON)
	fmt.Println(err)
	// Output:
	// json <nil>
	// must be table, markdown or json, not "yaml"
}
