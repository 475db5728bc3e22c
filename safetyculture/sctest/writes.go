package sctest

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"time"
)

// Assignment is one assignee of a course: Type is ASSIGNMENT_TYPE_USER,
// ASSIGNMENT_TYPE_GROUP or ASSIGNMENT_TYPE_SITE.
type Assignment struct {
	Type, ID string
}

type wireAssignmentsBody struct {
	Assignments []struct {
		ID         string `json:"id"`
		Type       string `json:"type"`
		IsAssigned bool   `json:"isAssigned"`
	} `json:"assignments"`
	UniversalAccess bool `json:"universalAccess"`
	ClearAllUsers   bool `json:"clearAllUsers"`
	ClearAllGroups  bool `json:"clearAllGroups"`
	ClearAllSites   bool `json:"clearAllSites"`
}

// Assignments returns a course's assignees, sorted by type and id.
func (s *Server) Assignments(courseID string) []Assignment {
	var out []Assignment
	s.read(func(st *store, _ time.Time) {
		for a := range st.assignments[courseID] {
			out = append(out, a)
		}
	})
	slices.SortFunc(out, func(a, b Assignment) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// AddAssignment assigns a course to a user, group or site, as the
// course's assignments write does.
func (s Seeding) AddAssignment(courseID string, a Assignment) error {
	return s.write(func(st *store, _ time.Time) error {
		if st.courses.Get(courseID) == nil || !st.assigneeExists(a.Type, a.ID) {
			return fmt.Errorf("%w: course %q or assignee %s %q", ErrNotFound, courseID, a.Type, a.ID)
		}
		if st.assignments[courseID] == nil {
			st.assignments[courseID] = map[Assignment]bool{}
		}
		st.assignments[courseID][a] = true
		return nil
	})
}

// putAssignments answers PUT /training/courses/v1/{courseId}/assignments:
// it assigns or unassigns users, groups and sites, after the clearAll
// flags, and counts what changed of each kind.
func (s api) putAssignments(w http.ResponseWriter, r *http.Request) {
	var body wireAssignmentsBody
	if !readJSON(w, r, &body) {
		return
	}
	id := r.PathValue("courseId")
	var counts map[string]int
	status, code, msg := http.StatusOK, 0, ""
	_ = s.write(func(st *store, _ time.Time) error {
		if st.courses.Get(id) == nil {
			status, code, msg = http.StatusNotFound, codeNotFound, "course "+id+" not found"
			return nil
		}
		for _, a := range body.Assignments {
			if !st.assigneeExists(a.Type, a.ID) {
				status, code, msg = http.StatusBadRequest, codeInvalidArgument, "unknown assignee "+a.Type+" "+a.ID
				return nil
			}
		}
		counts = st.assign(id, body)
		return nil
	})
	if status != http.StatusOK {
		writeError(w, status, code, msg)
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"usersUpdated": counts["ASSIGNMENT_TYPE_USER"],
		"groupsUpdated": counts["ASSIGNMENT_TYPE_GROUP"], "sitesUpdated": counts["ASSIGNMENT_TYPE_SITE"]})
}

func (st *store) assigneeExists(kind, id string) bool {
	switch kind {
	case "ASSIGNMENT_TYPE_USER":
		return st.users.Get(id) != nil
	case "ASSIGNMENT_TYPE_GROUP":
		return st.groups.Get(id) != nil
	case "ASSIGNMENT_TYPE_SITE":
		return st.sites.Get(id) != nil
	}
	return false
}

func (st *store) assign(courseID string, body wireAssignmentsBody) map[string]int {
	set := st.assignments[courseID]
	if set == nil {
		set = map[Assignment]bool{}
		st.assignments[courseID] = set
	}
	counts := map[string]int{}
	clear := map[string]bool{"ASSIGNMENT_TYPE_USER": body.ClearAllUsers, "ASSIGNMENT_TYPE_GROUP": body.ClearAllGroups, "ASSIGNMENT_TYPE_SITE": body.ClearAllSites}
	for a := range set {
		if clear[a.Type] {
			delete(set, a)
			counts[a.Type]++
		}
	}
	for _, in := range body.Assignments {
		a := Assignment{Type: in.Type, ID: in.ID}
		if set[a] != in.IsAssigned {
			counts[a.Type]++
		}
		if in.IsAssigned {
			set[a] = true
		} else {
			delete(set, a)
		}
	}
	return counts
}

// resetProgress answers POST /training/courseprogress/v1/reset. The body
// is the fake's guess, {"courseId": "...", "userIds": ["..."]} (course_id
// and user_ids are read too, as nothing public shows the spelling): it
// forgets those users' progress in that course (the course's row and its
// lessons').
func (s api) resetProgress(w http.ResponseWriter, r *http.Request) {
	var body struct {
		CourseID   string   `json:"courseId"`
		UserIDs    []string `json:"userIds"`
		CourseIDSn string   `json:"course_id"`
		UserIDsSn  []string `json:"user_ids"`
	}
	if !readJSON(w, r, &body) {
		return
	}
	body.CourseID = cmp.Or(body.CourseID, body.CourseIDSn)
	if len(body.UserIDs) == 0 {
		body.UserIDs = body.UserIDsSn
	}
	found := true
	_ = s.write(func(st *store, _ time.Time) error {
		c := st.courses.Get(body.CourseID)
		if found = c != nil; !found {
			return nil
		}
		for _, uid := range body.UserIDs {
			st.resetProgress(uid, c)
		}
		return nil
	})
	if !found {
		notFound(w, "course", body.CourseID)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{})
}

func (st *store) resetProgress(userID string, c *course) {
	k := ucKey{userID, c.id}
	if st.progress[k] != nil {
		delete(st.progress, k)
		st.progressKeys = slices.DeleteFunc(st.progressKeys, func(o ucKey) bool { return o == k })
	}
	for _, lid := range c.lessonIDs {
		lk := ulKey{userID, lid}
		if st.analytics.lessonProgress[lk] != nil {
			delete(st.analytics.lessonProgress, lk)
			st.analytics.lpKeys = slices.DeleteFunc(st.analytics.lpKeys, func(o ulKey) bool { return o == lk })
		}
	}
}
