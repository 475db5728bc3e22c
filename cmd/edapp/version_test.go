package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{&debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}}, true, "v0.3.0"},
		{&debug.BuildInfo{}, true, "(devel)"},
		{nil, false, "(devel)"},
	} {
		if got := versionOf(tc.info, tc.ok); got != tc.want {
			t.Errorf("versionOf = %q, want %q", got, tc.want)
		}
	}
}

func TestVersionFlag(t *testing.T) {
	t.Parallel()
	r := runEnv(t, env{}, "--version")
	wantCode(t, r, exitOK)
	if r.stdout != "edapp version "+versionLine()+"\n" {
		t.Errorf("--version printed %q", r.stdout)
	}
	if !strings.Contains(r.stdout, "(devel)") && !strings.HasPrefix(buildVersion(), "v") {
		t.Errorf("version %q", buildVersion())
	}
}

// TestVersionDetail: --version adds the commit, its time and a dirty
// tree where the build recorded them; a go install build has the version
// alone.
func TestVersionDetail(t *testing.T) {
	t.Parallel()
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, tc := range []struct {
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{&debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}}, true, "v0.3.0"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v0.3.1-0.20261201100000-0123456789ab+dirty"}, Settings: vcs}, true,
			"v0.3.1-0.20261201100000-0123456789ab+dirty (commit 0123456789abcdef0123456789abcdef01234567, 2026-12-01T10:00:00Z, with changes not committed)"},
		{&debug.BuildInfo{Settings: vcs[:3]}, true, "(devel) (commit 0123456789abcdef0123456789abcdef01234567, 2026-12-01T10:00:00Z)"},
		{nil, false, "(devel)"},
	} {
		if got := versionDetail(tc.info, tc.ok); got != tc.want {
			t.Errorf("versionDetail = %q, want %q", got, tc.want)
		}
	}
}
