package main

import (
	"strings"
	"testing"

	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// TestSafetyCultureHintsNameItsSettings: a refused token and an
// unreachable host of --source safetyculture are told in SafetyCulture's
// settings, never EdApp's.
func TestSafetyCultureHintsNameItsSettings(t *testing.T) {
	t.Parallel()
	sc := sctest.New(t)
	for _, tc := range []struct {
		name string
		e    env
		args []string
		want []string
	}{
		{"token, environment", env{"SAFETYCULTURE_API_TOKEN": "wrong", "SAFETYCULTURE_BASE_URL": sc.URL}, nil,
			[]string{"SafetyCulture refused the API token", "SAFETYCULTURE_API_TOKEN environment variable", "--source safetyculture"}},
		{"token, flag", env{"SAFETYCULTURE_BASE_URL": sc.URL}, []string{"--token", "wrong"},
			[]string{"SafetyCulture refused the API token", "--token flag, with --source safetyculture"}},
		{"host, environment", env{"SAFETYCULTURE_API_TOKEN": sc.Token, "SAFETYCULTURE_BASE_URL": "http://127.0.0.1:1"}, nil,
			[]string{"could not reach 127.0.0.1:1 (SafetyCulture's base URL http://127.0.0.1:1 came from the SAFETYCULTURE_BASE_URL environment variable, with --source safetyculture)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append(append([]string{}, tc.args...), "export", "--source", "safetyculture", "--out", t.TempDir(), "--kinds", "users")
			r := runEnv(t, tc.e, args...)
			wantCode(t, r, exitError)
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "EDAPP_") || strings.Contains(r.stderr, "api.edapp.com") {
				t.Errorf("stderr names EdApp's settings:\n%s", r.stderr)
			}
		})
	}
}
