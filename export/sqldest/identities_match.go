package sqldest

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/edapp-go/edapp/export/internal/dbwrite"
)

// match pairs each EdApp entity with at most one SafetyCulture entity: by
// external id, else by the second key (named second: email or title). An
// entity whose two ways name different partners, whose key names several
// or only look-alikes, or whose partner another entity claims too, is a
// conflict; the others left alone are none. Every entity of either side
// gets one row.
func match(kind, second string, ed, sc []entity) []identity {
	m := proposals{partner: make([]int, len(ed)), how: make([]string, len(ed)), claims: map[int]int{}, conflicted: map[int]bool{}}
	m.propose(second, ed, sc)
	var out []identity
	taken := map[int]bool{}
	for i, e := range ed {
		row := identity{kind: kind, edappID: e.id, edappExt: e.ext, matchedBy: m.how[i], edappLeft: e.left}
		if j := m.partner[i]; j >= 0 && m.claims[j] > 1 {
			row.matchedBy, m.conflicted[j] = "conflict", true
		} else if j >= 0 {
			row.scID, row.scExt, taken[j] = sc[j].id, sc[j].ext, true
			row.scHeld, row.scLeft = sc[j].held, sc[j].left
		}
		row.edappHeld = e.held
		out = append(out, withEmail(row))
	}
	for j, e := range sc {
		if !taken[j] {
			row := identity{kind: kind, scID: e.id, scExt: e.ext, scHeld: e.held, matchedBy: "none", scLeft: e.left}
			if m.conflicted[j] {
				row.matchedBy = "conflict"
			}
			out = append(out, withEmail(row))
		}
	}
	return out
}

// proposals are the partners each EdApp entity's keys name, before two
// entities' claims on the same partner are settled.
type proposals struct {
	partner    []int    // index into sc; -1 none, -2 conflict
	how        []string // what named the partner
	claims     map[int]int
	conflicted map[int]bool // SafetyCulture entities some conflict names
}

// propose finds each EdApp entity's partner by external id, else by the
// second key.
func (m *proposals) propose(second string, ed, sc []entity) {
	byExt, bySecond := indexBy(sc, func(e entity) string { return e.extKey }), indexBy(sc, func(e entity) string { return e.secondKey })
	for i, e := range ed {
		a := byExt[e.extKey]
		same, alike := splitAlike(e, sc, bySecond[e.secondKey])
		m.partner[i], m.how[i] = pick(a, same, alike, second)
		if m.partner[i] == -2 {
			for _, j := range slices.Concat(a, same, alike) {
				m.conflicted[j] = true
			}
		}
		if m.partner[i] >= 0 {
			m.claims[m.partner[i]]++
		}
	}
}

// withEmail sets a person's email: EdApp's, else SafetyCulture's.
func withEmail(r identity) identity {
	if r.kind == "person" {
		r.email = cmp.Or(r.edappHeld, r.scHeld)
	}
	return r
}

// splitAlike splits the candidates that share e's second key into those
// that are the same (spelt the same but for ASCII case, or the same in
// NFC where neither holds a rune that turns into ASCII) and those that
// only look alike.
func splitAlike(e entity, sc []entity, cands []int) (same, alike []int) {
	for _, j := range cands {
		c := sc[j]
		if c.rawKey == e.rawKey || c.sameKey == e.sameKey && !e.risky && !c.risky {
			same = append(same, j)
		} else {
			alike = append(alike, j)
		}
	}
	return same, alike
}

// pick is the partner the two ways name: by external id (a) and by the
// second key (same), each a list of candidates; alike are candidates that
// only look like the second key, a conflict unless the external id
// decides.
func pick(a, same, alike []int, second string) (int, string) {
	switch {
	case len(a) > 1:
		return -2, "conflict"
	case len(a) == 1 && len(same) == 1 && a[0] != same[0]:
		return -2, "conflict"
	case len(a) == 1:
		return a[0], "external_id"
	case len(same) > 1 || len(alike) > 0:
		return -2, "conflict"
	case len(same) == 1:
		return same[0], second
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
		q := `INSERT INTO identities (kind, edapp_id, safetyculture_id, edapp_external_id, safetyculture_external_id, email, matched_by,
edapp_email, safetyculture_email, edapp_title, safetyculture_title, edapp_left, safetyculture_left) VALUES ` +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), ", len(chunk)), ", ")
		args := make([]any, 0, 13*len(chunk))
		for _, r := range chunk {
			args = append(args, r.kind, null(r.edappID), null(r.scID), null(r.edappExt), null(r.scExt), null(r.email), r.matchedBy)
			if r.kind == "person" {
				args = append(args, null(r.edappHeld), null(r.scHeld), nil, nil, leftArg(r.edappID, r.edappLeft), leftArg(r.scID, r.scLeft))
			} else {
				args = append(args, nil, nil, null(r.edappHeld), null(r.scHeld), nil, nil)
			}
		}
		if _, err := tx.ExecContext(ctx, dbwrite.Rebind(d, q), args...); err != nil {
			return err
		}
	}
	return nil
}

// identitiesPerInsert is how many identities one INSERT writes: a round
// trip each would cost more than the matching.
const identitiesPerInsert = 500

// leftArg is a person's edapp_left or safetyculture_left: NULL without
// an id on that side.
func leftArg(id string, left bool) any {
	if id == "" {
		return nil
	}
	return left
}
