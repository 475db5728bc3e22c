package sqldest

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// reportBuilder fills a Report from what it read, people first: the
// completions' categories need to know who and what was matched.
type reportBuilder struct {
	*Report
	in  reportInput
	nfc Normalizer
	// personOf and courseOf are the identities by each service's id,
	// keyed source + " " + id.
	personOf, courseOf map[string]*pairRow
	// course is the index in Courses of each course identity's
	// reconciliation.
	course map[*pairRow]int
}

// people categorises each person of identities, then pairs the unmatched
// ones that share a name.
func (b *reportBuilder) people() {
	b.personOf = map[string]*pairRow{}
	t := &b.Totals.People
	var edOnly, scOnly []*pairRow
	for i := range b.in.people {
		p := &b.in.people[i]
		b.index(b.personOf, p)
		category := personCategory(p, b.nfc)
		switch category {
		case "":
			t.Matched++
			continue
		case CategoryIdentityConflict:
			t.IdentityConflict++
		case CategoryEmailChanged:
			t.EmailChanged++
		case CategoryPersonEdAppOnly:
			t.EdAppOnly++
			edOnly = append(edOnly, p)
		case CategoryPersonSafetyCultureOnly:
			t.SafetyCultureOnly++
			scOnly = append(scOnly, p)
		}
		b.add(Difference{Category: category, Person: reportPerson(p, p)})
	}
	for _, pair := range b.sameNames(edOnly, scOnly) {
		t.ProbableSamePerson++
		b.add(Difference{Category: CategoryProbableSamePerson, Person: reportPerson(pair[0], pair[1])})
	}
}

// personCategory is what the move did to p; "" when it carried p as is.
func personCategory(p *pairRow, nfc Normalizer) string {
	switch {
	case p.matchedBy == "conflict":
		return CategoryIdentityConflict
	case p.scID == "":
		return CategoryPersonEdAppOnly
	case p.edappID == "":
		return CategoryPersonSafetyCultureOnly
	case keysOfEmail(p.edappHeld, nfc).match != keysOfEmail(p.scHeld, nfc).match:
		return CategoryEmailChanged
	}
	return ""
}

// sameNames pairs the EdApp-only and SafetyCulture-only people that share
// a first and last name (nameKey) with no one else on either side.
func (b *reportBuilder) sameNames(ed, sc []*pairRow) [][2]*pairRow {
	key := func(first, last string) string {
		f, l := nameKey(first, b.nfc), nameKey(last, b.nfc)
		if f == "" || l == "" {
			return ""
		}
		return f + "\x1f" + l
	}
	byName := func(ps []*pairRow, first, last func(*pairRow) string) map[string][]*pairRow {
		out := map[string][]*pairRow{}
		for _, p := range ps {
			if k := key(first(p), last(p)); k != "" {
				out[k] = append(out[k], p)
			}
		}
		return out
	}
	edBy := byName(ed, func(p *pairRow) string { return p.first }, func(p *pairRow) string { return p.last })
	scBy := byName(sc, func(p *pairRow) string { return p.scFirst }, func(p *pairRow) string { return p.scLast })
	var out [][2]*pairRow
	for _, p := range ed {
		k := key(p.first, p.last)
		if k != "" && len(edBy[k]) == 1 && len(scBy[k]) == 1 {
			out = append(out, [2]*pairRow{p, scBy[k][0]})
		}
	}
	return out
}

// courses categorises each course of identities and gives it its
// reconciliation row.
func (b *reportBuilder) courses() {
	b.courseOf, b.course = map[string]*pairRow{}, map[*pairRow]int{}
	t := &b.Totals.Courses
	for i := range b.in.courses {
		c := &b.in.courses[i]
		b.index(b.courseOf, c)
		b.course[c] = len(b.Courses)
		b.Courses = append(b.Courses, CourseReconciliation{EdAppID: ptr(c.edappID), SafetyCultureID: ptr(c.scID), Title: ptr(cmp.Or(c.edappHeld, c.scHeld))})
		var category string
		switch {
		case c.matchedBy == "conflict":
			t.IdentityConflict++
			category = CategoryIdentityConflict
		case c.scID == "":
			t.EdAppOnly++
			category = CategoryCourseEdAppOnly
		case c.edappID == "":
			t.SafetyCultureOnly++
			category = CategoryCourseSafetyCultureOnly
		case c.matchedBy == "title":
			t.MatchedByTitle++
			category = CategoryCourseMatchedByTitle
		default:
			t.Matched++
			continue
		}
		b.add(Difference{Category: category, Course: reportCourse(c)})
	}
}

// completions pairs each EdApp completion with SafetyCulture's, through
// the matched person and course; SafetyCulture's left over are rows of
// their own.
func (b *reportBuilder) completions() {
	scAt := map[[2]string]int{}
	for i, c := range b.in.sc {
		scAt[[2]string{c.user, c.course}] = i
		b.reconciliation(b.courseOf[SourceSafetyCulture+" "+c.course], SourceSafetyCulture, c.course).SafetyCultureCompletions++
	}
	paired := make([]bool, len(b.in.sc))
	t := &b.Totals.Completions
	for _, e := range b.in.edapp {
		t.EdApp++
		person, course := b.personOf[SourceEdApp+" "+e.user], b.courseOf[SourceEdApp+" "+e.course]
		rec := b.reconciliation(course, SourceEdApp, e.course)
		rec.EdAppCompletions++
		d := Difference{Person: b.personOrID(person, e.user, ""), Course: b.courseOrID(course, e.course, ""), EdApp: progressOf(e)}
		i, ok := -1, false
		if cause := missingCause(person, course); cause != "" {
			d.Cause = &cause
		} else {
			i, ok = scAt[[2]string{person.scID, course.scID}]
		}
		if !ok {
			t.Missing++
			rec.Missing++
			d.Category = CategoryCompletionMissing
			b.add(d)
			continue
		}
		t.Carried++
		rec.Carried++
		paired[i] = true
		b.carried(d, e, b.in.sc[i])
	}
	for i, s := range b.in.sc {
		if !paired[i] {
			b.scOnly(s)
		}
	}
}

// carried adds the differences of a carried completion: its date, and a
// score EdApp had that did not arrive (each service's score on its own
// scale: never compared across them).
func (b *reportBuilder) carried(d Difference, e, s completion) {
	d.SafetyCulture = progressOf(s)
	if diff := e.at.Sub(s.at); diff > time.Second || diff < -time.Second {
		d.Category = CategoryCompletionDateChanged
		b.Totals.Completions.DateChanged++
		b.add(d)
	}
	if e.score != nil && *e.score > 0 && (s.score == nil || *s.score == 0) {
		d.Category = CategoryScoreLost
		b.Totals.Completions.ScoreLost++
		b.add(d)
	}
}

// scOnly adds a SafetyCulture completion EdApp has no counterpart of.
func (b *reportBuilder) scOnly(s completion) {
	d := Difference{Category: CategoryCompletionSafetyCultureOnly, SafetyCulture: progressOf(s),
		Person: b.personOrID(b.personOf[SourceSafetyCulture+" "+s.user], "", s.user),
		Course: b.courseOrID(b.courseOf[SourceSafetyCulture+" "+s.course], "", s.course)}
	if b.MovedAt != nil && s.at.After(*b.MovedAt) {
		d.Category = CategoryCompletedAfterMove
		b.Totals.Completions.CompletedAfterMove++
	} else {
		b.Totals.Completions.SafetyCultureOnly++
	}
	b.add(d)
}

// missingCause is why a completion of person and course cannot have
// arrived: "" when both were matched.
func missingCause(person, course *pairRow) string {
	switch {
	case person != nil && person.matchedBy == "conflict", course != nil && course.matchedBy == "conflict":
		return CategoryIdentityConflict
	case person == nil || person.scID == "":
		return CategoryPersonEdAppOnly
	case course == nil || course.scID == "":
		return CategoryCourseEdAppOnly
	}
	return ""
}

// reconciliation is the reconciliation of course, or of a course of
// source that identities do not hold (a completion of a course deleted
// since), made on first use. It is valid until the next call.
func (b *reportBuilder) reconciliation(course *pairRow, source, id string) *CourseReconciliation {
	if course == nil {
		course = &pairRow{}
		if source == SourceEdApp {
			course.edappID = id
		} else {
			course.scID = id
		}
		b.index(b.courseOf, course)
		b.course[course] = len(b.Courses)
		b.Courses = append(b.Courses, CourseReconciliation{EdAppID: ptr(course.edappID), SafetyCultureID: ptr(course.scID)})
	}
	return &b.Courses[b.course[course]]
}

func (b *reportBuilder) index(m map[string]*pairRow, p *pairRow) {
	if p.edappID != "" {
		m[SourceEdApp+" "+p.edappID] = p
	}
	if p.scID != "" {
		m[SourceSafetyCulture+" "+p.scID] = p
	}
}

func (b *reportBuilder) add(d Difference) { b.Differences = append(b.Differences, d) }

// personOrID is the person of identities, or one known by an id only.
func (b *reportBuilder) personOrID(p *pairRow, edappID, scID string) *ReportPerson {
	if p == nil {
		return &ReportPerson{EdAppID: ptr(edappID), SafetyCultureID: ptr(scID)}
	}
	return reportPerson(p, p)
}

// courseOrID is the course of identities, or one known by an id only.
func (b *reportBuilder) courseOrID(c *pairRow, edappID, scID string) *ReportCourse {
	if c == nil {
		return &ReportCourse{EdAppID: ptr(edappID), SafetyCultureID: ptr(scID)}
	}
	return reportCourse(c)
}

// reportPerson is the person of ed (EdApp's side) and sc (SafetyCulture's).
func reportPerson(ed, sc *pairRow) *ReportPerson {
	return &ReportPerson{EdAppID: ptr(ed.edappID), SafetyCultureID: ptr(sc.scID), EdAppEmail: ptr(ed.edappHeld),
		SafetyCultureEmail: ptr(sc.scHeld), FirstName: ptr(cmp.Or(ed.first, sc.scFirst)), LastName: ptr(cmp.Or(ed.last, sc.scLast))}
}

func reportCourse(c *pairRow) *ReportCourse {
	return &ReportCourse{EdAppID: ptr(c.edappID), SafetyCultureID: ptr(c.scID), Title: ptr(cmp.Or(c.edappHeld, c.scHeld)),
		EdAppExternalID: ptr(c.edappExt), SafetyCultureExternalID: ptr(c.scExt)}
}

func progressOf(c completion) *ReportProgress {
	at := c.at
	return &ReportProgress{CompletedAt: &at, Score: c.score}
}

// ptr is s, or nil for "": an unknown value.
func ptr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// finish orders the differences (by category, then person and course)
// and the courses (by title).
func (b *reportBuilder) finish() {
	if b.Differences == nil {
		b.Differences = []Difference{}
	}
	order := Categories()
	slices.SortStableFunc(b.Differences, func(x, y Difference) int {
		return cmp.Or(cmp.Compare(slices.Index(order, x.Category), slices.Index(order, y.Category)),
			strings.Compare(x.Person.sortKey(), y.Person.sortKey()), strings.Compare(x.Course.sortKey(), y.Course.sortKey()))
	})
	slices.SortStableFunc(b.Courses, func(x, y CourseReconciliation) int {
		return strings.Compare(deref(x.Title)+deref(x.EdAppID), deref(y.Title)+deref(y.EdAppID))
	})
}

func (p *ReportPerson) sortKey() string {
	if p == nil {
		return ""
	}
	return cmp.Or(deref(p.EdAppEmail), deref(p.SafetyCultureEmail)) + "\x00" + deref(p.EdAppID) + deref(p.SafetyCultureID)
}

func (c *ReportCourse) sortKey() string {
	if c == nil {
		return ""
	}
	return deref(c.Title) + "\x00" + deref(c.EdAppID) + deref(c.SafetyCultureID)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
