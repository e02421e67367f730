package manifest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestCheckSize(t *testing.T) {
	if err := checkSize(MaxManifestBytes); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	if err := checkSize(MaxManifestBytes + 1); err == nil {
		t.Error("over the limit: no error")
	}
}

// A manifest whose texts alone are over the limit is refused before it is
// encoded: encoding a manifest over 256 MiB to refuse it took 2 GB.
func TestMarshalRefusesBeforeEncoding(t *testing.T) {
	const limit = 1 << 20
	text := strings.Repeat("x", limit/2+1)
	m := &Manifest{SchemaVersion: SchemaVersion, Fragments: Fragments{{ID: "a", Text: text}},
		Sections: []Section{{ID: SectionFiles, Text: text}}}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err := marshal(m, limit)
	runtime.ReadMemStats(&m1)
	if err == nil || !strings.Contains(err.Error(), "more than the 1048576 that ctx reads back") {
		t.Fatalf("error %v", err)
	}
	if a := m1.TotalAlloc - m0.TotalAlloc; a > 64<<10 {
		t.Errorf("refusing %d bytes of text allocated %d", 2*len(text), a)
	}
	// under the limit, the encoded size decides
	m.Sections = nil
	if _, err := marshal(m, limit); err != nil {
		t.Errorf("half the limit: %v", err)
	}
}

// A manifest on standard input redirected from a file over the limit is
// refused by the file's size, before it is read.
func TestDecodeRefusesBySize(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "m.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(MaxManifestBytes + 1); err != nil {
		t.Skipf("cannot make a sparse file: %v", err)
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err = Decode(f)
	runtime.ReadMemStats(&m1)
	if err == nil || !strings.Contains(err.Error(), "manifest larger than 268435456 bytes") {
		t.Fatalf("error %v", err)
	}
	if a := m1.TotalAlloc - m0.TotalAlloc; a > 1<<20 {
		t.Errorf("refusing it allocated %d bytes", a)
	}
}
