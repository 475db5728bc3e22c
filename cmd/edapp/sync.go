package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/edapp-go/edapp"
)

// syncColumns are the columns a sync CSV may have, in any order.
var syncColumns = []string{"externalId", "username", "email", "firstName", "lastName", "userGroups", "roles", "timeZone"}

// syncRow is one desired user. A nil field was not given (no column, or an
// empty cell) and is left as it is.
type syncRow struct {
	line       int
	externalID string
	fields     map[string]string   // username, email, firstName, lastName, timeZone
	groups     []string            // group ids, resolved
	roles      []edapp.Role        // nil: not given
	lists      map[string][]string // userGroups and roles as given, for the plan
}

// rowError is a bad row, reported with its line number.
type rowError struct {
	line int
	msg  string
}

// badRowsError lists every bad row of a file.
type badRowsError []rowError

func (e badRowsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d bad row(s); nothing was changed:", len(e))
	for _, r := range e {
		fmt.Fprintf(&b, "\n  line %d: %s", r.line, r.msg)
	}
	return b.String()
}

// groupIndex resolves a group by id or name.
type groupIndex struct {
	byID   map[string]edapp.UserGroup
	byName map[string][]edapp.UserGroup // lower-cased name
}

func newGroupIndex(groups []edapp.UserGroup) groupIndex {
	gi := groupIndex{byID: map[string]edapp.UserGroup{}, byName: map[string][]edapp.UserGroup{}}
	for _, g := range groups {
		gi.byID[g.ID] = g
		k := strings.ToLower(g.Name)
		gi.byName[k] = append(gi.byName[k], g)
	}
	return gi
}

func (gi groupIndex) resolve(ref string) (string, error) {
	if g, ok := gi.byID[ref]; ok {
		return g.ID, nil
	}
	switch gs := gi.byName[strings.ToLower(ref)]; len(gs) {
	case 0:
		return "", fmt.Errorf("unknown group %q", ref)
	case 1:
		return gs[0].ID, nil
	default:
		return "", fmt.Errorf("group name %q is ambiguous (%d groups); use its id", ref, len(gs))
	}
}

func (gi groupIndex) name(id string) string {
	if g, ok := gi.byID[id]; ok && g.Name != "" {
		return g.Name
	}
	return id
}

// splitList splits a ;-separated cell, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ";") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// readSyncCSV reads and checks the whole file. A header problem is an
// error; bad rows come back as a list, beside the good ones.
func readSyncCSV(r io.Reader, groups groupIndex) ([]syncRow, badRowsError, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil, errors.New("the CSV is empty: it needs a header row")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading the CSV header: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		name := ""
		for _, c := range syncColumns {
			if strings.EqualFold(h, c) {
				name = c
			}
		}
		if name == "" {
			return nil, nil, fmt.Errorf("line 1: unknown column %q (want some of %s)", h, strings.Join(syncColumns, ","))
		}
		if _, dup := col[name]; dup {
			return nil, nil, fmt.Errorf("line 1: column %q appears twice", name)
		}
		col[name] = i
	}
	if _, ok := col["externalId"]; !ok {
		return nil, nil, errors.New("line 1: the externalId column is required")
	}
	cr.FieldsPerRecord = len(header)

	var (
		rows []syncRow
		bad  badRowsError
		seen = map[string]int{} // external id -> line
		user = map[string]int{} // lower-cased username -> line
	)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
			bad = append(bad, rowError{pe.StartLine, fmt.Sprintf("%d fields, want %d", len(rec), len(header))})
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("reading the CSV: %w", err)
		}
		line, _ := cr.FieldPos(0)
		get := func(name string) string {
			if i, ok := col[name]; ok {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		row := syncRow{line: line, externalID: get("externalId"), fields: map[string]string{}, lists: map[string][]string{}}
		var msgs []string
		if row.externalID == "" {
			msgs = append(msgs, "missing externalId")
		} else if prev, dup := seen[row.externalID]; dup {
			msgs = append(msgs, fmt.Sprintf("duplicate externalId %q (first on line %d)", row.externalID, prev))
		} else {
			seen[row.externalID] = line
		}
		for _, f := range []string{"username", "email", "firstName", "lastName", "timeZone"} {
			if v := get(f); v != "" {
				row.fields[f] = v
			}
		}
		if u := strings.ToLower(row.fields["username"]); u != "" {
			if prev, dup := user[u]; dup {
				msgs = append(msgs, fmt.Sprintf("duplicate username %q (first on line %d)", row.fields["username"], prev))
			} else {
				user[u] = line
			}
		}
		if refs := splitList(get("userGroups")); len(refs) > 0 {
			row.lists["userGroups"] = refs
			for _, ref := range refs {
				id, err := groups.resolve(ref)
				if err != nil {
					msgs = append(msgs, err.Error())
					continue
				}
				if !slices.Contains(row.groups, id) {
					row.groups = append(row.groups, id)
				}
			}
		}
		if names := splitList(get("roles")); len(names) > 0 {
			row.lists["roles"] = names
			for _, n := range names {
				r := edapp.Role(strings.ToLower(n))
				if !slices.Contains(edapp.Roles(), r) {
					msgs = append(msgs, fmt.Sprintf("unknown role %q", n))
					continue
				}
				if !slices.Contains(row.roles, r) {
					row.roles = append(row.roles, r)
				}
			}
		}
		if len(msgs) > 0 {
			bad = append(bad, rowError{line, strings.Join(msgs, "; ")})
			continue
		}
		rows = append(rows, row)
	}
	return rows, bad, nil
}

// change is one field that differs.
type change struct {
	field    string
	from, to string
}

// syncAction is one step of a plan.
type syncAction struct {
	kind    string // create, update, delete
	row     syncRow
	user    edapp.User // the current user (update, delete)
	changes []change
}

type syncPlan struct {
	creates, updates, deletes []syncAction
	unchanged                 int
}

// planSync compares the desired rows with the current users. bad holds the
// rows already refused; any refused row makes the whole plan an error.
func planSync(rows []syncRow, bad badRowsError, users []edapp.User, groups groupIndex, deleteMissing bool) (syncPlan, error) {
	var p syncPlan
	byExt := map[string]edapp.User{}
	for _, u := range users {
		if u.ExternalID != "" {
			byExt[u.ExternalID] = u
		}
	}
	for _, row := range rows {
		u, exists := byExt[row.externalID]
		if !exists {
			if row.fields["username"] == "" {
				bad = append(bad, rowError{row.line, fmt.Sprintf("new user %q needs a username", row.externalID)})
				continue
			}
			p.creates = append(p.creates, syncAction{kind: "create", row: row, changes: createChanges(row, groups)})
			continue
		}
		delete(byExt, row.externalID)
		if ch := updateChanges(row, u, groups); len(ch) > 0 {
			p.updates = append(p.updates, syncAction{kind: "update", row: row, user: u, changes: ch})
		} else {
			p.unchanged++
		}
	}
	if len(bad) > 0 {
		sort.SliceStable(bad, func(i, j int) bool { return bad[i].line < bad[j].line })
		return p, bad
	}
	if deleteMissing {
		for _, u := range byExt {
			p.deletes = append(p.deletes, syncAction{kind: "delete", user: u})
		}
		sort.Slice(p.deletes, func(i, j int) bool { return p.deletes[i].user.ExternalID < p.deletes[j].user.ExternalID })
	}
	return p, nil
}

func (row syncRow) orderedFields() []string {
	var out []string
	for _, f := range []string{"username", "email", "firstName", "lastName", "timeZone"} {
		if _, ok := row.fields[f]; ok {
			out = append(out, f)
		}
	}
	return out
}

func groupNames(ids []string, groups groupIndex) string {
	names := make([]string, 0, len(ids))
	for _, id := range ids {
		names = append(names, groups.name(id))
	}
	slices.Sort(names)
	return strings.Join(names, ";")
}

func roleNames(rs []edapp.Role) string {
	s := make([]string, 0, len(rs))
	for _, r := range rs {
		s = append(s, string(r))
	}
	slices.Sort(s)
	return strings.Join(s, ";")
}

func createChanges(row syncRow, groups groupIndex) []change {
	var out []change
	for _, f := range row.orderedFields() {
		out = append(out, change{field: f, to: row.fields[f]})
	}
	if row.groups != nil {
		out = append(out, change{field: "userGroups", to: groupNames(row.groups, groups)})
	}
	if row.roles != nil {
		out = append(out, change{field: "roles", to: roleNames(row.roles)})
	}
	return out
}

func currentField(u edapp.User, f string) string {
	switch f {
	case "username":
		return u.Username
	case "email":
		return u.Email
	case "firstName":
		return u.FirstName
	case "lastName":
		return u.LastName
	case "timeZone":
		return u.TimeZone
	}
	return ""
}

func sameSet[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func updateChanges(row syncRow, u edapp.User, groups groupIndex) []change {
	var out []change
	for _, f := range row.orderedFields() {
		if cur := currentField(u, f); cur != row.fields[f] {
			out = append(out, change{field: f, from: cur, to: row.fields[f]})
		}
	}
	if row.groups != nil && !sameSet(row.groups, u.UserGroups) {
		out = append(out, change{field: "userGroups", from: groupNames(u.UserGroups, groups), to: groupNames(row.groups, groups)})
	}
	if row.roles != nil && !sameSet(row.roles, u.Roles) {
		out = append(out, change{field: "roles", from: roleNames(u.Roles), to: roleNames(row.roles)})
	}
	return out
}

func (p syncPlan) empty() bool {
	return len(p.creates)+len(p.updates)+len(p.deletes) == 0
}

// print writes the plan: counts, then one line per action.
func (p syncPlan) print(w io.Writer) {
	fmt.Fprintf(w, "plan: %d to create, %d to update, %d to delete, %d unchanged\n",
		len(p.creates), len(p.updates), len(p.deletes), p.unchanged)
	for _, a := range p.creates {
		fmt.Fprintf(w, "create %s (line %d):", a.row.externalID, a.row.line)
		for _, c := range a.changes {
			fmt.Fprintf(w, " %s=%q", c.field, c.to)
		}
		fmt.Fprintln(w)
	}
	for _, a := range p.updates {
		fmt.Fprintf(w, "update %s (line %d, id %s):", a.row.externalID, a.row.line, a.user.ID)
		for i, c := range a.changes {
			sep := " "
			if i > 0 {
				sep = ", "
			}
			fmt.Fprintf(w, "%s%s %q -> %q", sep, c.field, c.from, c.to)
		}
		fmt.Fprintln(w)
	}
	for _, a := range p.deletes {
		fmt.Fprintf(w, "delete %s (id %s, username %q)\n", a.user.ExternalID, a.user.ID, a.user.Username)
	}
}

func createParams(row syncRow) edapp.UserCreateParams {
	return edapp.UserCreateParams{
		ExternalID: row.externalID,
		Username:   row.fields["username"],
		Email:      row.fields["email"],
		FirstName:  row.fields["firstName"],
		LastName:   row.fields["lastName"],
		TimeZone:   row.fields["timeZone"],
		Roles:      row.roles,
		UserGroups: row.groups,
	}
}

func updateParams(a syncAction) edapp.UserUpdateParams {
	var p edapp.UserUpdateParams
	for _, c := range a.changes {
		v := edapp.Ptr(c.to)
		switch c.field {
		case "username":
			p.Username = v
		case "email":
			p.Email = v
		case "firstName":
			p.FirstName = v
		case "lastName":
			p.LastName = v
		case "timeZone":
			p.TimeZone = v
		case "userGroups":
			p.UserGroups = a.row.groups
		case "roles":
			p.Roles = a.row.roles
		}
	}
	return p
}
