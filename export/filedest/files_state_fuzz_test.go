package filedest

import (
	"context"
	"encoding/json"
	"path"
	"path/filepath"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/edappsrc"
)

// stateSeeds are state files the fuzzer starts from: as an export writes
// them, and as an attacker or a crash might leave them.
var stateSeeds = []string{
	`{"version":1,"format":"csv","kinds":{}}`,
	`{"version":1,"format":"csv","kinds":{"attempts":{"cursor":"2026-11-24T10:00:00.123456Z","parts":[{"file":"attempts/part-000001.csv","keys":"attempts/.part-000001.keys","records":3,"maxTime":"2026-11-24T09:59:59.999999Z","keysSha256":"ab"}],"records":3,"updated":"2026-11-24T10:00:01Z"},"users":{"records":2,"updated":"2026-11-24T10:00:01Z"}},"budget":["2026-11-24T10:00:00.5Z","2026-11-24T10:00:01.000001+02:00"]}`,
	`{"version":1,"kinds":{"attempts":{"parts":[{"file":"../../etc/passwd","keys":"attempts/.part-000001.keys"}]}}}`,
	`{"version":1,"kinds":{"attempts":{"parts":[{"file":"attempts/part-000001.csv","keys":"/etc/shadow"}]}}}`,
	`{"version":1,"kinds":{"attempts":{"cursor":"0000-01-01T00:00:00Z"},"lesson_progress_events":{"cursor":"9999-12-31T23:59:59.999999999+23:59"}}}`,
	`{"version":1,"kinds":{"x":null},"budget":["0001-01-01T00:00:00Z"]}`,
	`{"version":2}`,
	`null`,
}

// FuzzParseState: whatever a state file holds, reading it and planning
// every kind from it never panics; a state that is accepted names only
// the parts of its kinds, inside the export directory; each kind's fetch
// starts at its cursor minus Overlap, never after the cursor; the state
// is written back as it was read; and its budget holds a limiter back for
// at most one window.
func FuzzParseState(f *testing.F) {
	for _, s := range stateSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := parseState(b)
		if err != nil {
			return
		}
		checkParsedState(t, st)
		checkPlans(t, st)
		checkBudget(t, st)
		out, err := json.Marshal(st)
		if err != nil {
			return // save fails with an error: the user starts over
		}
		again, err := parseState(out)
		if err != nil {
			t.Fatalf("a state written back is refused: %v\n%s", err, out)
		}
		if out2, _ := json.Marshal(again); string(out2) != string(out) {
			t.Fatalf("a state changed when written back:\n%s\n%s", out, out2)
		}
	})
}

func checkParsedState(t *testing.T, st *exportState) {
	t.Helper()
	if st.Version != 1 || st.Kinds == nil {
		t.Fatalf("accepted version %d, kinds %v", st.Version, st.Kinds)
	}
	for name, ks := range st.Kinds {
		if ks == nil {
			continue
		}
		for _, p := range ks.Parts {
			for _, rel := range []string{p.File, p.Keys} {
				abs := filepath.Join("/export", filepath.FromSlash(rel))
				if !filepath.IsLocal(rel) || path.Dir(rel) != name || filepath.Dir(filepath.Dir(abs)) != "/export" {
					t.Fatalf("accepted %q for kind %q", rel, name)
				}
			}
		}
	}
}

// checkPlans plans every kind from the state, as a run would.
func checkPlans(t *testing.T, st *exportState) {
	t.Helper()
	f := &Files{st: st}
	for _, k := range edappsrc.Kinds() {
		p, err := f.Resume(context.Background(), &k, export.RunInfo{})
		if err != nil {
			t.Fatal(err)
		}
		ks := st.Kinds[k.Name]
		if ks == nil || ks.Cursor == nil {
			if !p.From.IsZero() {
				t.Fatalf("%s: no cursor, but the fetch starts at %v", k.Name, p.From)
			}
			continue
		}
		if p.From.After(*ks.Cursor) || !p.From.Equal(ks.Cursor.Add(-export.Overlap)) {
			t.Fatalf("%s: cursor %v, the fetch starts at %v", k.Name, ks.Cursor, p.From)
		}
	}
}

// checkBudget seeds a limiter with the state's budget, as edapp export
// does: it holds calls back for one window at most.
func checkBudget(t *testing.T, st *exportState) {
	t.Helper()
	const window = time.Minute
	l, err := edapp.NewWindowLimiter(3, window, edapp.WithAdmissions(st.Budget))
	if err != nil {
		return // a zero time: refused with an error
	}
	if d := l.Delay(true); d > window {
		t.Fatalf("the budget %v holds calls back for %v", st.Budget, d)
	}
	if n := len(l.Admissions()); n > 3 {
		t.Fatalf("%d admissions counted, limit 3", n)
	}
}
