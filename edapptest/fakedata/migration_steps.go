package fakedata

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/safetyculture/sctest"
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

// planUsers works out the people to copy and their new ids.
func (m *migrator) planUsers() {
	for _, u := range m.snap.Users {
		if u.Email == "" {
			m.out.NoEmail = append(m.out.NoEmail, u.ID)
			continue
		}
		spec := sctest.UserSpec{ID: "user_" + m.key(32, "user", u.ID), Email: u.Email, FirstName: orDefault(u.FirstName, "NA"),
			LastName: orDefault(u.LastName, "NA"), ExternalID: u.ExternalID, SeatType: seatOf(u.Roles),
			LastSeenAt: u.LastActiveDate.Time, CreatedAt: m.out.MovedAt}
		m.changePerson(u, &spec)
		m.users = append(m.users, spec)
		m.out.Users[u.ID] = spec.ID
		if m.owner == "" && slices.Contains(u.Roles, "account-admin") {
			m.owner = spec.ID
		}
	}
}

// addUsers adds the people, those to be deactivated after the move
// inactive already.
func (m *migrator) addUsers() error {
	off := map[string]bool{}
	for _, id := range m.deactivated() {
		off[id] = true
	}
	for _, spec := range m.users {
		spec.Owner, spec.Inactive = spec.ID == m.owner, off[spec.ID]
		if _, err := m.sc.AddUser(spec); err != nil {
			return fmt.Errorf("migrating a user to %s: %w", spec.ID, err)
		}
	}
	return nil
}

func orDefault(v, def string) string {
	if strings.TrimSpace(v) == "" {
		return def
	}
	return v
}

// changePerson applies a planted change of identity to spec and fills in
// its record.
func (m *migrator) changePerson(u edapptest.SnapshotUser, spec *sctest.UserSpec) {
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
		var err error
		pending = slices.DeleteFunc(pending, func(g edapptest.SnapshotGroup) bool {
			if err != nil || g.ParentID != "" && m.out.Sites[g.ParentID] == "" {
				return false
			}
			err = m.addGroup(g)
			return true
		})
		if err != nil {
			return err
		}
		if len(pending) == before { // a cycle: nothing left has a placed parent
			return fmt.Errorf("%w: the EdApp group hierarchy has a cycle", sctest.ErrInvalid)
		}
	}
	for _, u := range m.snap.Users {
		for _, gid := range u.UserGroups {
			if uid := m.out.Users[u.ID]; uid != "" {
				if err := errors.Join(m.sc.AddGroupUser(m.out.Groups[gid], uid), m.sc.AddSiteMember(m.out.Sites[gid], uid)); err != nil {
					return err
				}
			}
		}
	}
	var parent string
	if len(m.snap.Groups) > 0 {
		parent = m.out.Sites[m.snap.Groups[0].ID]
	}
	_, err := m.sc.AddSite(sctest.SiteSpec{ID: "location_" + m.key(32, "deleted-site"), Name: "Closed site", ParentID: parent, Deleted: true})
	return err
}

func (m *migrator) addGroup(g edapptest.SnapshotGroup) error {
	gid, err := m.sc.AddGroup("role_"+m.key(32, "group", g.ID), g.Name)
	if err != nil {
		return err
	}
	m.out.Groups[g.ID] = gid
	label := "location"
	if slices.ContainsFunc(m.snap.Groups, func(o edapptest.SnapshotGroup) bool { return o.ParentID == g.ID }) {
		label = "area"
	}
	sid, err := m.sc.AddSite(sctest.SiteSpec{ID: "location_" + m.key(32, "site", g.ID), Name: g.Name,
		ParentID: m.out.Sites[g.ParentID], MetaLabel: label})
	m.out.Sites[g.ID] = sid
	return err
}

func (m *migrator) courses() error {
	lessons := map[string][]edapptest.SnapshotLesson{}
	for _, l := range m.snap.Lessons {
		lessons[l.CourseID] = append(lessons[l.CourseID], l)
	}
	for _, c := range m.snap.Courses {
		spec := sctest.CourseSpec{ID: m.key(24, "course", c.ID), ExternalID: m.courseExternalID(c), Title: c.Title,
			Description: c.Description, Status: c.Status, Locale: c.Locale, ThumbnailURL: c.ThumbnailURL,
			Duration: c.Duration, Created: c.CreatedDateTime.Time, Modified: c.ModifiedDateTime.Time}
		for _, l := range lessons[c.ID] {
			id := m.key(24, "lesson", l.ID)
			spec.Lessons = append(spec.Lessons, sctest.LessonSpec{ID: id, ExternalID: l.ExternalID,
				Title: l.Title, Description: l.Description, Status: l.Status, MinimumScore: l.MinimumScore})
			m.out.Lessons[l.ID] = id
			if l.Status == "published" {
				m.published[spec.ID] = append(m.published[spec.ID], id)
			}
		}
		if _, _, err := m.sc.AddCourse(spec); err != nil {
			return fmt.Errorf("migrating EdApp course %s: %w", c.ID, err)
		}
		m.out.Courses[c.ID] = spec.ID
	}
	for _, col := range m.snap.Collections {
		if _, err := m.sc.AddCollection(col.Title, col.Description, m.mapped(m.out.Courses, col.CourseIDs)); err != nil {
			return err
		}
	}
	for _, g := range m.snap.Groups {
		for _, cid := range m.mapped(m.out.Courses, g.CourseIDs) {
			if err := m.sc.AddAssignment(cid, sctest.Assignment{Type: "ASSIGNMENT_TYPE_GROUP", ID: m.out.Groups[g.ID]}); err != nil {
				return err
			}
		}
	}
	return nil
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

// carried works out the completions that arrive (all but the missing
// ones), once: Carried, the missing ones' new ids and ScoresDropped.
func (m *migrator) carried() []Completion {
	if m.out.Carried != nil || len(m.completions) == 0 {
		return m.out.Carried
	}
	missing := map[[2]string]int{}
	for i, c := range m.out.Planted.MissingCompletions {
		missing[[2]string{c.EdAppUserID, c.EdAppCourseID}] = i + 1
	}
	m.out.Carried = []Completion{}
	for _, p := range m.completions {
		uid, cid := m.out.Users[p.UserID], m.key(24, "course", p.CourseID)
		if uid == "" {
			continue // no email: the person was left behind
		}
		done := Completion{EdAppUserID: p.UserID, EdAppCourseID: p.CourseID, UserID: uid, CourseID: cid, CompletedAt: p.CompletedDateTime.Time}
		if i := missing[[2]string{p.UserID, p.CourseID}]; i > 0 {
			m.out.Planted.MissingCompletions[i-1] = done
			continue
		}
		m.out.Carried = append(m.out.Carried, done)
		if !m.cfg.noAnomalies {
			m.out.Planted.ScoresDropped = append(m.out.Planted.ScoresDropped, done)
		}
	}
	if len(m.out.Carried) == 0 {
		m.out.Carried = nil
	}
	return m.out.Carried
}

// carry brings the carried completions over.
func (m *migrator) carry() error {
	progress := map[[2]string]edapptest.SnapshotProgress{}
	for _, p := range m.completions {
		progress[[2]string{p.UserID, p.CourseID}] = p
	}
	for _, done := range m.carried() {
		if err := m.carryOne(progress[[2]string{done.EdAppUserID, done.EdAppCourseID}], done); err != nil {
			return err
		}
	}
	return nil
}

func (m *migrator) carryOne(p edapptest.SnapshotProgress, done Completion) error {
	spec := sctest.ProgressSpec{UserID: done.UserID, CourseID: done.CourseID, OpenedAt: p.OpenedDateTime.Time, CompletedAt: p.CompletedDateTime.Time,
		TotalLessons: p.LessonsTotal, CompletedLessons: p.LessonsTotal, ProgressPercent: 100}
	if m.cfg.noAnomalies {
		spec.CompletedLessons, spec.ProgressPercent, spec.Score = p.LessonsCompleted, p.PercentageCompleted, int(math.Round(p.Score))
	}
	if err := m.sc.SetCourseProgress(spec); err != nil {
		return err
	}
	for _, l := range m.published[done.CourseID] {
		if err := m.sc.SetLessonProgress(sctest.LessonProgressSpec{UserID: done.UserID, LessonID: l,
			OpenedAt: p.OpenedDateTime.Time, CompletedAt: p.CompletedDateTime.Time, Score: p.Score, Scored: m.cfg.noAnomalies}); err != nil {
			return err
		}
	}
	return nil
}

// afterMovePeople are the people who completed the new course and those
// who only opened it: a tenth of the people each.
func (m *migrator) afterMovePeople() (completed, opened []string) {
	var ids []string
	for _, u := range m.users {
		ids = append(ids, u.ID)
	}
	people := m.pick("after", ids)
	tenth := max(1, len(people)/10)
	return people[:min(tenth, len(people))], people[min(tenth, len(people)):min(2*tenth, len(people))]
}

// afterMove adds the activity that happened only in SafetyCulture: a new
// course, completed by about one person in ten and opened by as many,
// retakes by about one in twenty of the carried completions, and the new
// course's path, survey, rapid refresh and slides (content). The people
// deactivated after the move were added inactive.
func (m *migrator) afterMove() error {
	tick := m.afterMoveClock()
	at := tick()
	spec := sctest.CourseSpec{ID: m.key(24, "new-course"), ExternalID: "SC-NEW-001", Title: "Working Safely After the Move",
		Created: at, Modified: at}
	for i := range 3 {
		spec.Lessons = append(spec.Lessons, sctest.LessonSpec{ID: m.key(24, "new-lesson", strconv.Itoa(i)), Title: "Part " + strconv.Itoa(i+1)})
	}
	cid, lids, err := m.sc.AddCourse(spec)
	if err != nil {
		return err
	}
	m.out.After.NewCourseID = cid
	completed, opened := m.afterMovePeople()
	var errs []error
	for _, uid := range completed {
		for _, lid := range lids {
			errs = append(errs, m.sc.CompleteLesson(uid, lid, m.score("new", uid+lid), tick()))
		}
		m.out.After.Completed = append(m.out.After.Completed, uid)
	}
	for _, uid := range opened {
		errs = append(errs, m.sc.OpenLesson(uid, lids[0], tick()))
		m.out.After.InProgress = append(m.out.After.InProgress, uid)
	}
	errs = append(errs, m.retakes(tick), m.content(cid, lids, tick))
	return errors.Join(errs...)
}

// afterMoveLead is how long after the move its first activity comes, when
// the clocks leave room.
const afterMoveLead = 5 * time.Minute

// afterMoveTicks is at most how many times afterMove dates something:
// the new course, its three lessons completed and one opened by a tenth
// of the people each, a survey answer per completer, a retake per
// twentieth of the carried completions.
func (m *migrator) afterMoveTicks() int {
	tenth := len(m.users)/10 + 1
	return 1 + 5*tenth + len(m.carried())/20 + 1
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
			m.ahead += need - room
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

func (m *migrator) retakes(tick func() time.Time) error {
	var pairs []string
	for _, c := range m.out.Carried {
		pairs = append(pairs, c.UserID+" "+c.CourseID)
	}
	if len(pairs) == 0 {
		return nil
	}
	for _, pair := range m.pick("retake", pairs)[:max(1, len(pairs)/20)] {
		uid, cid, _ := strings.Cut(pair, " ")
		lessons := m.published[cid]
		if len(lessons) == 0 {
			continue
		}
		if err := m.sc.CompleteLesson(uid, lessons[0], m.score("retake", pair), tick()); err != nil {
			return err
		}
		m.out.After.Retakes = append(m.out.After.Retakes, pair)
	}
	return nil
}

// deactivated picks about one in forty of the people with no completion
// and no activity after the move, to be deactivated after it.
func (m *migrator) deactivated() []string {
	busy := map[string]bool{m.owner: true}
	if m.owner == "" && len(m.users) > 0 {
		busy[m.users[0].ID] = true // the first user owns the token
	}
	for _, c := range m.carried() {
		busy[c.UserID] = true
	}
	completed, opened := m.afterMovePeople()
	for _, id := range append(completed, opened...) {
		busy[id] = true
	}
	var idle []string
	for _, u := range m.users {
		if !busy[u.ID] {
			idle = append(idle, u.ID)
		}
	}
	if len(idle) == 0 {
		return nil
	}
	m.out.After.Deactivated = m.pick("deactivate", idle)[:max(1, len(idle)/40)]
	return m.out.After.Deactivated
}
