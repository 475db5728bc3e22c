package main

import (
	"context"
	"slices"
	"testing"

	"github.com/edapp-go/edapp/export/dbschema"
)

// TestMigrateZeroScores: the migration that makes SafetyCulture's score of
// 0 NULL sets the zeros an earlier version stored to NULL, SafetyCulture's
// only: EdApp's 0 is a score it sent.
func TestMigrateZeroScores(t *testing.T) {
	t.Parallel()
	v := slices.IndexFunc(dbschema.Migrations(), func(m dbschema.Migration) bool { return m.Name == "safetyculture zero scores" })
	if v < 0 {
		t.Fatal("no migration of SafetyCulture's zero scores")
	}
	bothEmptyDBs(t, func(t *testing.T, url string) {
		db, d := openTestDB(t, url)
		schemaAt(t, db, d, v) // the version before it
		for _, q := range []string{
			`INSERT INTO course_progress (source, user_id, course_id, score, raw) VALUES ('safetyculture', 'u1', 'c1', 0, '{}'), ('safetyculture', 'u1', 'c2', 60, '{}'), ('edapp', 'u1', 'c1', 0, '{}')`,
			`INSERT INTO attempts (source, id, score, raw) VALUES ('safetyculture', 'a1', 0, '{}'), ('safetyculture', 'a2', 60, '{}'), ('edapp', 'a1', 0, '{}')`,
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatalf("%v\n%s", err, q)
			}
		}
		if err := dbschema.NewMigrator(db, d).Up(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"course_progress", "attempts"} {
			got := rowsOfDB(t, db, `SELECT source, CASE WHEN score IS NULL THEN 'NULL' ELSE CAST(CAST(score AS INTEGER) AS TEXT) END FROM `+table+` ORDER BY source, score IS NULL, score`)
			want := [][]string{{"edapp", "0"}, {"safetyculture", "60"}, {"safetyculture", "NULL"}}
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("%s: %v, want %v", table, got, want)
			}
		}
	})
}
