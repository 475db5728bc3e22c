package main

import (
	"testing"

	"github.com/edapp-go/edapp/edapptest/fakedata"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// TestIdentitiesEmailNormalisation: emails match in NFC with only ASCII
// letters folded. An address SafetyCulture spells with a Kelvin sign K
// or a dotted capital İ is a conflict, not the EdApp person whose ASCII
// address it looks like; NFC and NFD spellings of one address match; so
// do two that differ in ASCII case.
func TestIdentitiesEmailNormalisation(t *testing.T) {
	t.Parallel()
	bothDBs(t, func(t *testing.T, url string) {
		srv := edapptest.New(t)
		t.Cleanup(srv.Close)
		ids := map[string]string{}
		for _, email := range []string{"kelvin@example.com", "ines@example.com", "jos\u00e9@example.com", "Tim@Example.com"} {
			id, err := srv.AddUser(edapptest.UserSpec{Username: email, Email: email})
			if err != nil {
				t.Fatal(err)
			}
			ids[email] = id
		}
		sc, twin := sctest.New(t), sctest.New(t)
		for _, s := range []*sctest.Server{sc, twin} {
			if _, err := fakedata.SeedMigration(s, srv, fakedata.NoAnomalies()); err != nil {
				t.Fatal(err)
			}
		}
		respelt := map[string]string{"kelvin@example.com": "\u212Aelvin@example.com", "ines@example.com": "\u0130nes@example.com",
			"jos\u00e9@example.com": "jose\u0301@example.com", "Tim@Example.com": "tim@example.COM"}
		sc.Handle("GET /feed/users", rewriteFeed(t, twin, func(row map[string]any) bool {
			if e, ok := respelt[row["email"].(string)]; ok {
				row["email"] = e
			}
			return true
		}))
		exportBoth(t, srv, sc, url)
		want := map[string]string{"kelvin@example.com": "conflict", "ines@example.com": "conflict",
			"jos\u00e9@example.com": "email", "Tim@Example.com": "email"}
		for email, how := range want {
			got := rowsOf(t, url, `SELECT matched_by, COALESCE(safetyculture_email, '') FROM identities WHERE kind = 'person' AND edapp_id = '`+ids[email]+`'`)
			if len(got) != 1 || got[0][0] != how {
				t.Errorf("%s: %v, want matched_by %s", email, got, how)
			}
			if how == "email" && got[0][1] != respelt[email] {
				t.Errorf("%s: safetyculture_email %q, want %q", email, got[0][1], respelt[email])
			}
		}
	})
}
