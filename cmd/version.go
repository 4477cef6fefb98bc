package cmd

import (
	"runtime"
	"runtime/debug"
)

// version names this binary: its module version (for `go install
// ...@vX`), else the commit it was built from (+dirty when the tree had
// changes), with the Go release. `freightsite --version` prints it and
// GET /healthz answers it.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (" + runtime.Version() + ")"
	}
	v := info.Main.Version
	var rev, when string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if (v == "" || v == "(devel)") && rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v = rev
		if dirty {
			v += "+dirty"
		}
		if when != "" {
			v += " " + when
		}
	}
	if v == "" {
		v = "(devel)"
	}
	return v + " (" + runtime.Version() + ")"
}
