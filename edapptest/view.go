package edapptest

import (
	"slices"
	"sync"
)

// accountView is worked out from the store once per write and kept for
// the reads that follow, so that the per-course analytics of a large
// account cost the records they answer, not users × courses.
type accountView struct {
	version uint64
	// rows are the (user, course) pairs that have a course progress
	// record (the course reaches the user, or the user has progress in
	// it), by course in catalog order, then by user.
	rows     []courseRow
	byCourse map[string][]courseRow // the same rows, by course id
	reach    map[string]int         // users who can reach each course
}

type courseRow struct {
	u  *user
	cr *course
}

// viewCache holds the latest accountView.
type viewCache struct {
	mu   sync.Mutex
	view *accountView
}

func (st *store) view() *accountView {
	st.views.mu.Lock()
	defer st.views.mu.Unlock()
	if v := st.views.view; v != nil && v.version == st.version {
		return v
	}
	st.views.view = buildView(st)
	return st.views.view
}

func buildView(st *store) *accountView {
	v := &accountView{version: st.version, byCourse: map[string][]courseRow{}, reach: map[string]int{}}
	has := map[ucKey]bool{}
	for k := range st.prog {
		if l := st.lessons.Get(k.lessonID); l != nil {
			has[ucKey{k.userID, l.courseID}] = true
		}
	}
	for k := range st.completions {
		has[k] = true
	}
	users := st.users.All()
	for _, u := range users {
		for _, id := range reachableCourses(st, u) {
			has[ucKey{u.ID, id}] = true
			v.reach[id]++
		}
	}
	for _, cr := range st.courses.All() {
		start := len(v.rows)
		for _, u := range users {
			if has[ucKey{u.ID, cr.ID}] {
				v.rows = append(v.rows, courseRow{u, cr})
			}
		}
		v.byCourse[cr.ID] = v.rows[start:len(v.rows):len(v.rows)]
	}
	return v
}

// reachableCourses lists the ids of the courses assigned to u's groups
// and to their ancestors.
func reachableCourses(st *store, u *user) []string {
	var out []string
	for _, m := range u.groups {
		for _, g := range st.ancestors(st.groups.Get(m.groupID)) {
			for _, a := range g.courses {
				if !slices.Contains(out, a.courseID) {
					out = append(out, a.courseID)
				}
			}
		}
	}
	return out
}
