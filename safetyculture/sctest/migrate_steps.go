package sctest

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/edapp-go/edapp/edapptest"
)

// seatOf maps EdApp roles onto a seat type.
func seatOf(roles []string) string {
	for _, r := range roles {
		if r == "account-admin" || r == "content-author" || r == "manager-analytics" {
			return "full"
		}
	}
	return "free"
}

func (m *migrator) users() error {
	owner := ""
	for _, u := range m.snap.Users {
		if u.Email == "" {
			m.out.NoEmail = append(m.out.NoEmail, u.ID)
			continue
		}
		spec := UserSpec{ID: "user_" + m.key(32, "user", u.ID), Email: u.Email, FirstName: orDefault(u.FirstName, "NA"),
			LastName: orDefault(u.LastName, "NA"), ExternalID: u.ExternalID, SeatType: seatOf(u.Roles),
			LastSeenAt: u.LastActive, CreatedAt: m.out.MovedAt}
		m.changePerson(u, &spec)
		id, err := m.st.addUser(spec, m.now)
		if err != nil {
			return fmt.Errorf("migrating EdApp user %s: %w", u.ID, err)
		}
		m.out.Users[u.ID] = id
		if owner == "" && slices.Contains(u.Roles, "account-admin") {
			owner = id
		}
	}
	if owner != "" {
		m.st.ownerID = owner
	}
	return nil
}

// changePerson applies a planted change of identity to spec and fills in
// its record.
func (m *migrator) changePerson(u edapptest.SnapshotUser, spec *UserSpec) {
	pl := &m.out.Planted
	var pc *PersonChange
	switch {
	case pl.Unmatched != nil && pl.Unmatched.EdAppUserID == u.ID:
		pc = pl.Unmatched
		spec.Email, spec.ExternalID = "p"+m.key(10, "unmatched", u.ID)+"@mitti.example", ""
	case pl.EmailChanged != nil && pl.EmailChanged.EdAppUserID == u.ID:
		pc = pl.EmailChanged
		local, _, _ := strings.Cut(u.Email, "@")
		spec.Email = local + "@mail.example.net"
	default:
		return
	}
	*pc = PersonChange{EdAppUserID: u.ID, UserID: spec.ID, EdAppEmail: u.Email, Email: spec.Email,
		EdAppExternalID: u.ExternalID, ExternalID: spec.ExternalID}
}

// groupsAndSites copies the groups flat and mirrors their hierarchy in
// sites, parents first.
func (m *migrator) groupsAndSites() error {
	pending := slices.Clone(m.snap.Groups)
	for len(pending) > 0 {
		before := len(pending)
		pending = slices.DeleteFunc(pending, func(g edapptest.SnapshotGroup) bool {
			if g.ParentID != "" && m.out.Sites[g.ParentID] == "" {
				return false
			}
			m.addGroup(g)
			return true
		})
		if len(pending) == before { // a cycle: nothing left has a placed parent
			return fmt.Errorf("%w: the EdApp group hierarchy has a cycle", ErrInvalid)
		}
	}
	for _, u := range m.snap.Users {
		for _, gid := range u.GroupIDs {
			if uid := m.out.Users[u.ID]; uid != "" {
				m.st.addMember(&m.st.groupUsers, memberKey{m.out.Groups[gid], uid})
				m.st.addMember(&m.st.siteMembers, memberKey{m.out.Sites[gid], uid})
			}
		}
	}
	var parent string
	if len(m.snap.Groups) > 0 {
		parent = m.out.Sites[m.snap.Groups[0].ID]
	}
	_, err := m.st.addSite(SiteSpec{ID: "location_" + m.key(32, "deleted-site"), Name: "Closed site", ParentID: parent, Deleted: true})
	return err
}

func (m *migrator) addGroup(g edapptest.SnapshotGroup) {
	gid, _ := m.st.addGroup("role_"+m.key(32, "group", g.ID), g.Name)
	m.out.Groups[g.ID] = gid
	label := "location"
	if slices.ContainsFunc(m.snap.Groups, func(o edapptest.SnapshotGroup) bool { return o.ParentID == g.ID }) {
		label = "area"
	}
	sid, _ := m.st.addSite(SiteSpec{ID: "location_" + m.key(32, "site", g.ID), Name: g.Name,
		ParentID: m.out.Sites[g.ParentID], MetaLabel: label})
	m.out.Sites[g.ID] = sid
}

func (m *migrator) courses() error {
	lessons := map[string][]edapptest.SnapshotLesson{}
	for _, l := range m.snap.Lessons {
		lessons[l.CourseID] = append(lessons[l.CourseID], l)
	}
	for _, c := range m.snap.Courses {
		spec := CourseSpec{ID: m.key(24, "course", c.ID), ExternalID: m.courseExternalID(c), Title: c.Title,
			Description: c.Description, Status: c.Status, Locale: c.Locale, ThumbnailURL: c.ThumbnailURL,
			Duration: c.Duration, Created: c.Created, Modified: c.Modified}
		for _, l := range lessons[c.ID] {
			spec.Lessons = append(spec.Lessons, LessonSpec{ID: m.key(24, "lesson", l.ID), ExternalID: l.ExternalID,
				Title: l.Title, Description: l.Description, Status: l.Status, MinimumScore: l.MinimumScore})
			m.out.Lessons[l.ID] = spec.Lessons[len(spec.Lessons)-1].ID
		}
		if _, _, err := m.st.addCourse(spec, m.now); err != nil {
			return fmt.Errorf("migrating EdApp course %s: %w", c.ID, err)
		}
		m.out.Courses[c.ID] = spec.ID
	}
	for _, col := range m.snap.Collections {
		id := uuidOf(m.key(32, "collection", col.ID))
		m.st.collections.add(id, &collection{id: id, title: col.Title, description: col.Description, courseIDs: m.mapped(m.out.Courses, col.CourseIDs)})
	}
	for _, g := range m.snap.Groups {
		for _, cid := range m.mapped(m.out.Courses, g.CourseIDs) {
			m.assign(cid, Assignment{Type: "ASSIGNMENT_TYPE_GROUP", ID: m.out.Groups[g.ID]})
		}
	}
	return nil
}

func (m *migrator) assign(courseID string, a Assignment) {
	if m.st.assignments[courseID] == nil {
		m.st.assignments[courseID] = map[Assignment]bool{}
	}
	m.st.assignments[courseID][a] = true
}

func (m *migrator) mapped(ids map[string]string, edappIDs []string) []string {
	out := []string{}
	for _, id := range edappIDs {
		if v := ids[id]; v != "" {
			out = append(out, v)
		}
	}
	return out
}

// courseExternalID is the course's external id in SafetyCulture: EdApp's,
// except for the planted course.
func (m *migrator) courseExternalID(c edapptest.SnapshotCourse) string {
	pc := m.out.Planted.CourseExternalID
	if pc == nil || pc.EdAppCourseID != c.ID {
		return c.ExternalID
	}
	ext := c.ExternalID + "-SC"
	if c.ExternalID == "" {
		ext = "SC-" + m.key(8, "course-external-id", c.ID)
	}
	*pc = CourseChange{EdAppCourseID: c.ID, CourseID: m.key(24, "course", c.ID), EdAppExternalID: c.ExternalID, ExternalID: ext}
	return ext
}

// carry brings the completions over, but the missing ones.
func (m *migrator) carry() error {
	missing := map[[2]string]int{}
	for i, c := range m.out.Planted.MissingCompletions {
		missing[[2]string{c.EdAppUserID, c.EdAppCourseID}] = i + 1
	}
	for _, p := range m.completions {
		uid, cid := m.out.Users[p.UserID], m.out.Courses[p.CourseID]
		if uid == "" {
			continue // no email: the person was left behind
		}
		done := Completion{EdAppUserID: p.UserID, EdAppCourseID: p.CourseID, UserID: uid, CourseID: cid, CompletedAt: p.Completed}
		if i := missing[[2]string{p.UserID, p.CourseID}]; i > 0 {
			m.out.Planted.MissingCompletions[i-1] = done
			continue
		}
		if err := m.carryOne(p, done); err != nil {
			return err
		}
		m.out.Carried = append(m.out.Carried, done)
		if !m.cfg.noAnomalies {
			m.out.Planted.ScoresDropped = append(m.out.Planted.ScoresDropped, done)
		}
	}
	return nil
}

func (m *migrator) carryOne(p edapptest.SnapshotProgress, done Completion) error {
	spec := ProgressSpec{UserID: done.UserID, CourseID: done.CourseID, OpenedAt: p.Opened, CompletedAt: p.Completed,
		TotalLessons: p.LessonsTotal, CompletedLessons: p.LessonsTotal, ProgressPercent: 100}
	if m.cfg.noAnomalies {
		spec.CompletedLessons, spec.ProgressPercent, spec.Score = p.LessonsCompleted, p.Percentage, int(math.Round(p.Score))
	}
	if err := m.st.setProgress(spec, m.now); err != nil {
		return err
	}
	for _, l := range m.st.publishedLessons(m.st.courses.get(done.CourseID)) {
		lp := m.st.analytics.lessonProgressOf(ulKey{done.UserID, l.id}, done.CourseID, m.now)
		lp.opened, lp.completed = orNow(p.Opened, p.Completed), p.Completed
		if m.cfg.noAnomalies {
			lp.score, lp.hasScore = p.Score, true
		}
	}
	return nil
}

// afterMove adds the activity that happened only in SafetyCulture: a new
// course, completed by about one person in ten and opened by as many,
// retakes by about one in twenty of the carried completions, a few
// people deactivated, and the new course's path, survey, rapid refresh
// and slides (content).
func (m *migrator) afterMove() error {
	tick := m.afterMoveClock()
	at := tick()
	spec := CourseSpec{ID: m.key(24, "new-course"), ExternalID: "SC-NEW-001", Title: "Working Safely After the Move",
		Created: at, Modified: at}
	for i := range 3 {
		spec.Lessons = append(spec.Lessons, LessonSpec{ID: m.key(24, "new-lesson", strconv.Itoa(i)), Title: "Part " + strconv.Itoa(i+1)})
	}
	cid, lids, err := m.st.addCourse(spec, m.now)
	if err != nil {
		return err
	}
	m.out.After.NewCourseID = cid
	people := m.pick("after", m.st.users.order)
	tenth := max(1, len(people)/10)
	for i, uid := range people {
		u := m.st.users.get(uid)
		switch {
		case i < tenth:
			for _, lid := range lids {
				m.st.complete(u, m.st.lessons.get(lid), m.score("new", uid+lid), tick(), m.now)
			}
			m.out.After.Completed = append(m.out.After.Completed, uid)
		case i < 2*tenth:
			m.st.open(u, m.st.lessons.get(lids[0]), tick(), m.now)
			m.out.After.InProgress = append(m.out.After.InProgress, uid)
		}
	}
	m.retakes(tick)
	m.deactivate()
	m.content(cid, lids, tick)
	return nil
}

// afterMoveLead is how long after the move its first activity comes, when
// the clocks leave room.
const afterMoveLead = 5 * time.Minute

// afterMoveTicks is at most how many times afterMove dates something:
// the new course, its three lessons completed and one opened by a tenth
// of the people each, a survey answer per completer, a retake per
// twentieth of the carried completions.
func (m *migrator) afterMoveTicks() int {
	tenth := len(m.st.users.order)/10 + 1
	return 1 + 5*tenth + len(m.out.Carried)/20 + 1
}

// end is the latest time the migration may date anything: the earlier
// of the two fakes' clocks.
func (m *migrator) end() time.Time {
	if m.snap.Now.Before(m.now) {
		return m.snap.Now
	}
	return m.now
}

// movedAt is the move's time: early enough that the activity after it,
// a second apart after afterMoveLead, ends by end, but never before the
// latest EdApp activity (attempts and course progress). It runs before the users are copied, so the
// ticks are counted on the EdApp users and completions.
func (m *migrator) movedAt() time.Time {
	tenth := len(m.snap.Users)/10 + 1
	ticks := 1 + 5*tenth + len(m.snap.Progress)/20 + 1
	at := m.end().Add(-afterMoveLead - time.Duration(ticks+1)*time.Second)
	if m.snap.LatestActivity.After(at) {
		at = m.snap.LatestActivity
	}
	return at
}

// afterMoveClock dates the activity after the move: a second apart from
// afterMoveLead after it, or a millisecond apart from a second after it
// when the move is more recent, and never after end, which the fake's
// clock is moved on to when it must.
func (m *migrator) afterMoveClock() func() time.Time {
	end := m.end()
	ticks := time.Duration(m.afterMoveTicks() + 1)
	lead, step := afterMoveLead, time.Second
	if room := end.Sub(m.out.MovedAt); room < afterMoveLead+ticks*time.Second {
		lead, step = time.Second, time.Millisecond
		if need := lead + ticks*step; room < need {
			m.ahead.Add(int64(need - room))
			end = end.Add(need - room)
		}
	}
	at := m.out.MovedAt.Add(lead)
	return func() time.Time {
		at = at.Add(step)
		if at.After(end) {
			at = end
		}
		return at
	}
}

// score is a score from 60 to 100 derived from parts.
func (m *migrator) score(parts ...string) float64 {
	n, _ := strconv.ParseUint(m.key(4, parts...), 16, 32)
	return float64(60 + n%41)
}

func (m *migrator) retakes(tick func() time.Time) {
	var pairs []string
	for _, c := range m.out.Carried {
		pairs = append(pairs, c.UserID+" "+c.CourseID)
	}
	if len(pairs) == 0 {
		return
	}
	for _, pair := range m.pick("retake", pairs)[:max(1, len(pairs)/20)] {
		uid, cid, _ := strings.Cut(pair, " ")
		lessons := m.st.publishedLessons(m.st.courses.get(cid))
		if len(lessons) == 0 {
			continue
		}
		m.st.complete(m.st.users.get(uid), lessons[0], m.score("retake", pair), tick(), m.now)
		m.out.After.Retakes = append(m.out.After.Retakes, pair)
	}
}

// deactivate deactivates about one in forty of the people with no
// completion and no activity after the move.
func (m *migrator) deactivate() {
	busy := map[string]bool{}
	for _, k := range m.st.progressKeys {
		busy[k.userID] = true
	}
	var idle []string
	for _, id := range m.st.users.order {
		if !busy[id] && id != m.st.ownerID {
			idle = append(idle, id)
		}
	}
	if len(idle) == 0 {
		return
	}
	for _, id := range m.pick("deactivate", idle)[:max(1, len(idle)/40)] {
		m.st.users.get(id).active = false
		m.out.After.Deactivated = append(m.out.After.Deactivated, id)
	}
}
