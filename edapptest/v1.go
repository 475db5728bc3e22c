package edapptest

import (
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

func toV1User(u *user) v1User {
	return v1User{ID: u.ID, Username: u.Name, Email: u.Email, UserGroups: u.groupIDs(),
		FirstName: u.FirstName, LastName: u.LastName}
}

// v1UserBody is a v1 user write: the v2 fields v1 takes, and the id of
// the user to update.
type v1UserBody struct {
	ID                                   string
	Username, Email, FirstName, LastName *string
	ExternalIdentifier                   *string
	UserGroups                           *[]string
}

var v1SaveUser = withBody(func(c *exchange, in v1UserBody) (any, error) {
	u := &user{}
	if in.ID != "" {
		if u = c.st.users.Get(in.ID); u == nil {
			return nil, notFound("user %s not found", quote(in.ID))
		}
	}
	p := userPatch{Name: in.Username, Email: in.Email, FirstName: in.FirstName,
		LastName: in.LastName, ExternalID: in.ExternalIdentifier, Groups: in.UserGroups}
	err := applyUser(c.st, u, p.resolve(), c.now)
	return toV1User(u), err
})

func v1ListUsers(c *exchange) {
	c.json(http.StatusOK, fakeserver.Map(c.st.users.All(), toV1User))
}

// userToken answers the user's token, minted on first request and then
// kept for the user's life. It is opaque; the fake accepts it nowhere.
// A nil u was answered with a 404.
func (c *exchange) userToken(u *user) {
	if u == nil {
		return
	}
	if u.token == "" {
		u.token = rand.Text()
	}
	c.json(http.StatusOK, v1UserToken{Token: u.token})
}

func v1TokenByID(c *exchange) { c.userToken(c.userParam()) }

func v1TokenByExternalID(c *exchange) {
	u := c.st.userByExternalID(c.r.PathValue("id"))
	if u == nil {
		c.fail(http.StatusNotFound, "no user with external id "+quote(c.r.PathValue("id")))
	}
	c.userToken(u)
}

func v1DeleteUser(c *exchange)  { v1Delete(c, &c.st.users, "user", c.st.deleteUser) }
func v1DeleteGroup(c *exchange) { v1Delete(c, &c.st.groups, "user group", c.st.deleteGroup) }

// v1Delete deletes the record the path names; v1 answers a missing one
// with its success body.
func v1Delete[T any](c *exchange, t *fakeserver.Table[T], what string, del func(id string)) {
	if id := c.r.PathValue("id"); t.Get(id) == nil {
		c.json(http.StatusNotFound, successBody{Message: what + " " + quote(id) + " not found"})
	} else {
		del(id)
		c.json(http.StatusOK, successBody{Success: true})
	}
}

func toV1Group(st *store, g *group) v1Group {
	users := fakeserver.Map(st.members(g), func(u *user) string { return u.ID })
	return v1Group{ID: g.ID, Name: g.Name, Users: users, Courses: g.courseIDs()}
}

type v1GroupBody struct {
	ID             string
	Name           *string
	Users, Courses *[]string
}

var v1SaveGroup = withBody(func(c *exchange, in v1GroupBody) (any, error) {
	g, err := saveV1Group(c.st, in)
	if err != nil {
		return nil, err
	}
	if in.Users != nil {
		c.st.setMembers(g, *in.Users, c.now)
	}
	if in.Courses != nil {
		setCourses(g, *in.Courses, c.now)
	}
	return toV1Group(c.st, g), nil
})

// saveV1Group checks the users and courses, then renames the group in.ID,
// or adds a new one without an id.
func saveV1Group(st *store, in v1GroupBody) (*group, error) {
	for _, uid := range deref(in.Users) {
		if st.users.Get(uid) == nil {
			return nil, invalid("unknown user %s", quote(uid))
		}
	}
	for _, cid := range deref(in.Courses) {
		if st.courses.Get(cid) == nil {
			return nil, invalid("unknown course %s", quote(cid))
		}
	}
	if in.ID == "" {
		return addGroup(st, deref(in.Name), "", "")
	}
	g := st.groups.Get(in.ID)
	switch {
	case g == nil:
		return nil, notFound("user group %s not found", quote(in.ID))
	case in.Name != nil && strings.TrimSpace(*in.Name) == "":
		return nil, invalid("name must not be empty")
	case in.Name != nil:
		g.Name = strings.TrimSpace(*in.Name)
	}
	return g, nil
}

func deref[T any](p *T) (v T) {
	if p != nil {
		v = *p
	}
	return v
}

func v1ListGroups(c *exchange) {
	c.json(http.StatusOK, fakeserver.Map(c.st.groups.All(), func(g *group) v1Group { return toV1Group(c.st, g) }))
}

func courseHead(cr *course, cs courseState) v1CourseHead {
	return v1CourseHead{ID: cr.ID, Title: cr.Title, v1Progress: v1Progress{
		Unlocked: cs.unlocked, UnlockedDate: wt(cs.unlockedAt),
		Completed: cs.completed, CompletedDate: wt(cs.completedAt),
		Opened: !cs.openedAt.IsZero(), OpenedDate: wt(cs.openedAt),
	}}
}

// lessonProgressV1 is a lesson's progress: unlocked with its course, and
// opened and completed as p says.
func lessonProgressV1(cs courseState, p *lessonProgress) v1Progress {
	var out v1Progress
	if cs.unlocked {
		out.Unlocked, out.UnlockedDate = true, wt(cs.unlockedAt)
	}
	if p != nil {
		out.Opened, out.OpenedDate = true, wt(p.opened)
		out.Completed, out.CompletedDate = !p.completed.IsZero(), wt(p.completed)
	}
	return out
}

// launchBase is where launch links point: the host the request came in
// on, so that a mounted Handler hands out links to itself.
func (c *exchange) launchBase() string {
	if c.r.TLS != nil {
		return "https://" + c.r.Host
	}
	return "http://" + c.r.Host
}

// v1UserCourses answers a bare array of the published courses the user can
// reach, with their published lessons.
func v1UserCourses(c *exchange) {
	if u := c.userParam(); u != nil {
		c.json(http.StatusOK, userCourses(c.st, u, c.launchBase(), c.now))
	}
}

func userCourses(st *store, u *user, base string, now time.Time) []v1Course {
	st.pruneTokens(now)
	out := []v1Course{}
	for _, cr := range st.courses.All() {
		if !cr.published() {
			continue
		}
		cs := st.courseState(u, cr)
		if !cs.unlocked {
			continue
		}
		vc := v1Course{v1CourseHead: courseHead(cr, cs), Lessons: []v1Lesson{}}
		for _, l := range st.publishedLessons(cr) {
			tok := rand.Text()
			st.tokens[tok] = &launchToken{userID: u.ID, lessonID: l.ID, expires: now.Add(LaunchTokenLifetime)}
			// The documented order: token first, then lesson.
			link := base + "/launch-lesson?token=" + url.QueryEscape(tok) + "&lesson=" + url.QueryEscape(l.ID)
			vc.Lessons = append(vc.Lessons, v1Lesson{ID: l.ID, Title: l.Title, LaunchURI: link,
				v1Progress: lessonProgressV1(cs, st.progress(u.ID, l.ID))})
		}
		out = append(out, vc)
	}
	return out
}

// UserCourses is what GET /v1/users/{userId}/courses answers, with launch
// links on base, without counting as a request: for a learner's page.
func (s *Server) UserCourses(userID, base string) (json.RawMessage, error) {
	var out []v1Course
	err := s.locked(func(st *store, now time.Time) error {
		u, err := st.user(userID)
		if err == nil {
			out = userCourses(st, u, base, now)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// LaunchToken reports the user and lesson a launch token opens and when it
// expires on the server's clock; ok is false for a token never minted.
func (s *Server) LaunchToken(token string) (userID, lessonID string, expires time.Time, ok bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if t := s.st.tokens[token]; t != nil {
		return t.userID, t.lessonID, t.expires, true
	}
	return "", "", time.Time{}, false
}

// v1CourseReport answers the course with every lesson the user interacted
// with (opened, or with recorded slide interactions).
func v1CourseReport(c *exchange) {
	u := c.userParam()
	if u == nil {
		return
	}
	cr := c.courseParam("course")
	if cr == nil {
		return
	}
	cs := c.st.courseState(u, cr)
	rep := v1Report{v1CourseHead: courseHead(cr, cs), Lessons: []v1ReportLesson{}}
	for _, l := range c.st.courseLessons(cr) {
		p := c.st.progress(u.ID, l.ID)
		ins := slices.DeleteFunc(slices.Clone(c.st.interactions), func(in Interaction) bool { return in.UserID != u.ID || in.LessonID != l.ID })
		if p == nil && len(ins) == 0 {
			continue
		}
		rl := v1ReportLesson{ID: l.ID, Title: l.Title, v1Progress: lessonProgressV1(cs, p)}
		var viewed time.Duration
		rl.Slides, viewed = reportSlides(ins)
		rl.Duration = viewed.Seconds()
		rep.Lessons = append(rep.Lessons, rl)
	}
	c.json(http.StatusOK, rep)
}

// reportSlides groups a lesson's interactions by slide, in the order the
// slides were first seen, and adds up the time viewed.
func reportSlides(ins []Interaction) ([]v1Slide, time.Duration) {
	slides := []v1Slide{}
	var viewed time.Duration
	slideAt := map[string]int{}
	for _, in := range ins {
		i, ok := slideAt[in.Slide]
		if !ok {
			i = len(slides)
			slideAt[in.Slide] = i
			slides = append(slides, v1Slide{Name: in.Slide, Interactions: []v1Interaction{}})
		}
		vi := v1Interaction{Date: wt(in.Time), Type: in.Type}
		if in.Type == InteractionView {
			secs := in.Duration.Seconds()
			vi.Duration = &secs
			viewed += in.Duration
		} else {
			vi.Result = &v1Result{Correct: in.Correct, TooSlow: in.TooSlow}
		}
		slides[i].Interactions = append(slides[i].Interactions, vi)
	}
	return slides, viewed
}

const maxActivities = 100

// v1Activities answers the latest lesson opens and completions, newest
// first, at most 100.
func v1Activities(c *exchange) {
	out := []v1Activity{}
	for i := len(c.st.events) - 1; i >= 0 && len(out) < maxActivities; i-- {
		e := c.st.events[i]
		r := c.st.refs(e.userID, e.lessonID, e.courseID)
		a := v1Activity{Type: e.name, Date: wt(e.at), UserID: e.userID,
			Username: r.u.Name,
			CourseID: e.courseID, CourseTitle: r.c.Title,
			LessonID: e.lessonID, LessonTitle: r.l.Title, Score: e.score}
		out = append(out, a)
	}
	c.json(http.StatusOK, out)
}
