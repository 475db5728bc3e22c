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
	if r.stdout != "edapp version "+buildVersion()+"\n" {
		t.Errorf("--version printed %q", r.stdout)
	}
	if !strings.Contains(r.stdout, "(devel)") && !strings.HasPrefix(buildVersion(), "v") {
		t.Errorf("version %q", buildVersion())
	}
}
