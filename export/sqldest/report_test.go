package sqldest

import (
	"testing"
	"time"
)

// TestReportBuilder: each case of the categories, from identities and
// completions given directly: a conflicted course's completion is missing
// for identity_conflict, a completion of a course identities do not know
// still reconciles, and the totals add up.
func TestReportBuilder(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	moved := at.Add(24 * time.Hour)
	score := func(f float64) *float64 { return &f }
	in := reportInput{
		people: []pairRow{
			{edappID: "e1", scID: "s1", edappHeld: "a@x", scHeld: "A@x", matchedBy: "email"},
			{edappID: "e2", scID: "s2", edappHeld: "b@x", scHeld: "b@y", matchedBy: "external_id"},
			{edappID: "e3", edappHeld: "c@x", first: "Cy", last: "Lee", matchedBy: "none"},
			{scID: "s3", scHeld: "c@z", scFirst: " cy ", scLast: "LEE", matchedBy: "none"},
			{edappID: "e4", edappHeld: "d@x", first: "NA", last: "NA", matchedBy: "none"},
			{scID: "s4", scHeld: "d@z", scFirst: "NA", scLast: "NA", matchedBy: "none"},
			{edappID: "e5", edappHeld: "e@x", matchedBy: "conflict"},
		},
		courses: []pairRow{
			{edappID: "c1", scID: "k1", edappHeld: "Fire", matchedBy: "external_id"},
			{edappID: "c2", scID: "k2", edappHeld: "Ladders", edappExt: "L1", scExt: "L2", matchedBy: "title"},
			{edappID: "c3", edappHeld: "Old", matchedBy: "conflict"},
		},
		edapp: []completion{
			{user: "e1", course: "c1", at: at, score: score(80)}, // score lost
			{user: "e2", course: "c2", at: at},                   // date changed
			{user: "e1", course: "c2", at: at},                   // missing
			{user: "e3", course: "c1", at: at},                   // person_edapp_only
			{user: "e1", course: "c3", at: at},                   // identity_conflict (course)
			{user: "e5", course: "c1", at: at},                   // identity_conflict (person)
			{user: "e1", course: "gone", at: at},                 // course_edapp_only, unknown
		},
		sc: []completion{
			{user: "s1", course: "k1", at: at, score: score(0)},
			{user: "s2", course: "k2", at: at.Add(time.Hour)},
			{user: "s3", course: "k1", at: at},
			{user: "s2", course: "k1", at: moved.Add(time.Hour)},
		},
		movedAt: moved,
	}
	r := &Report{MovedAt: &in.movedAt}
	b := reportBuilder{Report: r, in: in, nfc: asHeld}
	b.people()
	b.courses()
	b.completions()
	b.finish()
	counts := map[string]int{}
	causes := map[string]int{}
	for _, d := range r.Differences {
		counts[d.Category]++
		if d.Cause != nil {
			causes[*d.Cause]++
		}
	}
	want := map[string]int{CategoryEmailChanged: 1, CategoryPersonEdAppOnly: 2, CategoryPersonSafetyCultureOnly: 2,
		CategoryProbableSamePerson: 1, CategoryIdentityConflict: 2, CategoryCourseMatchedByTitle: 1,
		CategoryScoreLost: 1, CategoryCompletionDateChanged: 1, CategoryCompletionMissing: 5,
		CategoryCompletionSafetyCultureOnly: 1, CategoryCompletedAfterMove: 1}
	for _, c := range Categories() {
		if counts[c] != want[c] {
			t.Errorf("%s: %d, want %d", c, counts[c], want[c])
		}
	}
	if causes[CategoryIdentityConflict] != 2 || causes[CategoryPersonEdAppOnly] != 1 || causes[CategoryCourseEdAppOnly] != 1 {
		t.Errorf("causes %v", causes)
	}
	p, k := r.Totals.People, r.Totals.Completions
	if p.Matched+p.EmailChanged+p.EdAppOnly+p.SafetyCultureOnly+p.IdentityConflict != len(in.people) {
		t.Errorf("people %+v do not partition %d", p, len(in.people))
	}
	if k.EdApp != 7 || k.Carried != 2 || k.Missing != 5 {
		t.Errorf("completions %+v", k)
	}
	total := 0
	for _, c := range r.Courses {
		if c.Carried+c.Missing != c.EdAppCompletions {
			t.Errorf("course %+v does not add up", c)
		}
		total += c.EdAppCompletions
	}
	if total != k.EdApp || len(r.Courses) != 4 {
		t.Errorf("%d courses hold %d completions, want 4 and %d", len(r.Courses), total, k.EdApp)
	}
}
