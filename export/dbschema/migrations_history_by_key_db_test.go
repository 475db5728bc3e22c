package dbschema_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/edapp-go/edapp/export/dbtest"
)

// TestHistoryOpenVersionLookupKeepsToThePrimaryKey: on PostgreSQL, the
// history trigger's lookup of a key's open version, planned generically as
// a trigger's statements are once cached, reads the history table's
// primary key, not an index of the versions by time (under migration 24,
// every version of the source, for each row written).
func TestHistoryOpenVersionLookupKeepsToThePrimaryKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := openTestDB(t, dbtest.MigratedPostgres(t))
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SET plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	for _, tb := range dbschema.Tables() {
		if !strings.HasSuffix(tb.Name, "_history") {
			continue
		}
		stmt := `PREPARE lookup_` + tb.Name + ` AS SELECT 1 FROM ` + tb.Name + ` WHERE ` + openVersionOf(tb.Key)
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		args := strings.TrimSuffix(strings.Repeat("NULL, ", len(tb.Key)-1), ", ")
		plan := rowIDs(t, conn, `EXPLAIN EXECUTE lookup_`+tb.Name+`(`+args+`)`)
		if text := strings.Join(plan, "\n"); !strings.Contains(text, " using "+tb.Name+"_pkey ") {
			t.Errorf("%s: the open version is looked up without the primary key:\n%s", tb.Name, text)
		}
	}
}

// openVersionOf is the history trigger's condition for a key's open
// version, in its order: source, the key's other columns but valid_from,
// valid_to IS NULL.
func openVersionOf(key []string) string {
	terms := []string{"source = $1"}
	for _, c := range key {
		if c != "source" && c != "valid_from" {
			terms = append(terms, c+" = $"+strconv.Itoa(len(terms)+1))
		}
	}
	return strings.Join(terms, " AND ") + " AND valid_to IS NULL"
}
