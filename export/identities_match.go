package export

import (
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/edapp-go/edapp/dbschema"
)

// match pairs each EdApp entity with at most one SafetyCulture entity: by
// external id, else by the second key (named second: email or title). An
// entity whose two ways name different partners, whose key names several,
// or whose partner another entity claims too, is a conflict; the others
// left alone are none. Every entity of either side gets one row.
func match(kind, second string, ed, sc []entity) []identity {
	byExt, bySecond := indexBy(sc, func(e entity) string { return e.extKey }), indexBy(sc, func(e entity) string { return e.secondKey })
	partner := make([]int, len(ed)) // index into sc; -1 none, -2 conflict
	how := make([]string, len(ed))
	claims := map[int]int{}
	conflicted := map[int]bool{}
	for i, e := range ed {
		a, b := byExt[e.extKey], bySecond[e.secondKey]
		partner[i], how[i] = pick(a, b, second)
		if partner[i] == -2 {
			for _, j := range append(slices.Clone(a), b...) {
				conflicted[j] = true
			}
		}
		if partner[i] >= 0 {
			claims[partner[i]]++
		}
	}
	var out []identity
	taken := map[int]bool{}
	for i, e := range ed {
		row := identity{kind: kind, edappID: e.id, edappExt: e.ext, email: e.email, matchedBy: how[i]}
		if j := partner[i]; j >= 0 && claims[j] > 1 {
			row.matchedBy, conflicted[j] = "conflict", true
		} else if j >= 0 {
			row.scID, row.scExt, taken[j] = sc[j].id, sc[j].ext, true
			if row.email == "" {
				row.email = sc[j].email
			}
		}
		out = append(out, row)
	}
	for j, e := range sc {
		if !taken[j] {
			row := identity{kind: kind, scID: e.id, scExt: e.ext, email: e.email, matchedBy: "none"}
			if conflicted[j] {
				row.matchedBy = "conflict"
			}
			out = append(out, row)
		}
	}
	return out
}

// pick is the partner the two ways name: by external id (a) and by the
// second key (b), each a list of candidates.
func pick(a, b []int, second string) (int, string) {
	switch {
	case len(a) > 1 || (len(a) == 0 && len(b) > 1):
		return -2, "conflict"
	case len(a) == 1 && len(b) == 1 && a[0] != b[0]:
		return -2, "conflict"
	case len(a) == 1:
		return a[0], "external_id"
	case len(b) == 1:
		return b[0], second
	}
	return -1, "none"
}

// indexBy is the positions of es by key; an empty key is left out.
func indexBy(es []entity, key func(entity) string) map[string][]int {
	out := map[string][]int{}
	for i, e := range es {
		if k := key(e); k != "" {
			out[k] = append(out[k], i)
		}
	}
	return out
}

// insertIdentities writes the rows.
func insertIdentities(ctx context.Context, tx *sql.Tx, d Dialect, rows []identity) error {
	null := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	for chunk := range slices.Chunk(rows, identitiesPerInsert) {
		q := `INSERT INTO identities (kind, edapp_id, safetyculture_id, edapp_external_id, safetyculture_external_id, email, matched_by) VALUES ` +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?), ", len(chunk)), ", ")
		args := make([]any, 0, 7*len(chunk))
		for _, r := range chunk {
			args = append(args, r.kind, null(r.edappID), null(r.scID), null(r.edappExt), null(r.scExt), null(r.email), r.matchedBy)
		}
		if _, err := tx.ExecContext(ctx, dbschema.Rebind(d, q), args...); err != nil {
			return err
		}
	}
	return nil
}

// identitiesPerInsert is how many identities one INSERT writes: a round
// trip each would cost more than the matching.
const identitiesPerInsert = 500
