package scrub

import (
	"strings"
	"testing"
)

type inner struct {
	Name string
	Tags []string
	m    string
}

type outer struct {
	ID    string
	P     *inner
	Again *inner
	List  []inner
	Map   map[string]string
	Any   any
	Ptr   *string
}

func TestStrings(t *testing.T) {
	s := "secret-x"
	shared := &inner{Name: "secret-a", Tags: []string{"secret-b", "ok"}, m: "secret-hidden"}
	v := &outer{ID: "secret-id", P: shared, Again: shared, List: []inner{{Name: "secret-c"}},
		Map: map[string]string{"secret-key": "secret-v"}, Any: "secret-any", Ptr: &s}
	calls := 0
	Strings(v, func(s string) string {
		calls++
		return strings.ReplaceAll(s, "secret", "[R]")
	})
	if v.ID != "[R]-id" || v.P.Name != "[R]-a" || v.P.Tags[0] != "[R]-b" || v.List[0].Name != "[R]-c" ||
		v.Map["secret-key"] != "[R]-v" || v.Any != "[R]-any" || *v.Ptr != "[R]-x" {
		t.Errorf("%+v %+v", v, *v.P)
	}
	if v.P.m != "secret-hidden" {
		t.Error("an unexported field was rewritten")
	}
	if v.Again.Name != "[R]-a" || strings.Count(v.P.Name, "[R]") != 1 {
		t.Errorf("the shared value was rewritten %q", v.P.Name)
	}
	Strings(nil, func(string) string { t.Fatal("called on nil"); return "" })
	_ = calls
}
