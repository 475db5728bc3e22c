package main

import "runtime/debug"

// buildVersion is the version of the module this binary was built from, as
// `go install ...@v1.2.3` records it, or "(devel)" for a build from a work
// tree.
func buildVersion() string {
	return versionOf(debug.ReadBuildInfo())
}

func versionOf(info *debug.BuildInfo, ok bool) string {
	if !ok || info.Main.Version == "" {
		return "(devel)"
	}
	return info.Main.Version
}
