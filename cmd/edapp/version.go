package main

import (
	"runtime/debug"
	"strings"
)

// buildVersion is the version of the module this binary was built from, as
// `go install ...@v1.2.3` records it, or "(devel)" for a build from a work
// tree that recorded none.
func buildVersion() string {
	return versionOf(debug.ReadBuildInfo())
}

func versionOf(info *debug.BuildInfo, ok bool) string {
	if !ok || info.Main.Version == "" {
		return "(devel)"
	}
	return info.Main.Version
}

// versionLine is what --version prints after "edapp version ": the
// module's version and, where the build recorded them (a build in a git
// work tree does; `go install ...@v1.2.3` does not), the commit, its time
// and whether the tree had changes not committed.
func versionLine() string {
	return versionDetail(debug.ReadBuildInfo())
}

func versionDetail(info *debug.BuildInfo, ok bool) string {
	v := versionOf(info, ok)
	if !ok {
		return v
	}
	var rev, at, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return v
	}
	parts := []string{"commit " + rev}
	if at != "" {
		parts = append(parts, at)
	}
	if modified == "true" {
		parts = append(parts, "with changes not committed")
	}
	return v + " (" + strings.Join(parts, ", ") + ")"
}
