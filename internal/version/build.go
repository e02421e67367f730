package version

import (
	"fmt"
	"os"
	"runtime/debug"
	"sync"
)

// module is ctx's module path.
const module = "github.com/ctxaudit/ctx"

var build = sync.OnceValue(buildIdentity)

// Build names the code of the running binary, for what must never outlive
// it (the cache of views and token counts): the ctx version and, where the
// build records them, ctx's module version and checksum (ctx as a
// dependency, or installed with go install) or its version-control
// revision. A development build (modified sources, or a build that records
// neither, such as a test binary) adds its executable's size and
// modification time, which change with every rebuild.
func Build() string { return build() }

func buildIdentity() string {
	id := Version
	bi, ok := debug.ReadBuildInfo()
	if ok {
		m := bi.Main
		for _, d := range bi.Deps {
			if d.Path == module {
				m = *d
			}
		}
		if m.Replace != nil {
			m = *m.Replace
		}
		if m.Path == module && m.Version != "" && m.Version != "(devel)" {
			return id + " " + m.Version + " " + m.Sum
		}
		var rev string
		modified := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if rev != "" && !modified && m.Path == module {
			return id + " " + rev
		}
		if rev != "" {
			id += " " + rev + " modified"
		}
	}
	// a development build: this very executable
	if exe, err := os.Executable(); err == nil {
		if st, err := os.Stat(exe); err == nil {
			return fmt.Sprintf("%s %s %d %d", id, exe, st.Size(), st.ModTime().UnixNano())
		}
	}
	return id + " unknown build"
}
