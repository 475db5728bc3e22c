package edapptest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

// Errors returned by the seeding and driving helpers.
var (
	// ErrNotFound reports an unknown id (user, group, course, lesson,
	// collection, question or webhook).
	ErrNotFound = errors.New("edapptest: not found")
	// ErrConflict reports a value that must be unique and is taken: a
	// username, a user's external id, a course's or lesson's external id, or
	// a group's invite code.
	ErrConflict = errors.New("edapptest: conflict")
	// ErrInvalid reports an invalid value, such as an unknown role.
	ErrInvalid = errors.New("edapptest: invalid")
)

type apiErr struct {
	status int
	msg    string
}

func (e *apiErr) Error() string { return "edapptest: " + e.msg }

// Is makes errors.Is(err, [ErrNotFound]) and friends work.
func (e *apiErr) Is(target error) bool {
	return map[error]int{ErrNotFound: 404, ErrConflict: 409, ErrInvalid: 400}[target] == e.status
}

func notFound(format string, args ...any) *apiErr {
	return &apiErr{404, fmt.Sprintf(format, args...)}
}

func conflict(format string, args ...any) *apiErr {
	return &apiErr{409, fmt.Sprintf(format, args...)}
}

func invalid(format string, args ...any) *apiErr {
	return &apiErr{400, fmt.Sprintf(format, args...)}
}

var roles = []string{
	"app-user", "prizing-user", "account-admin", "content-author",
	"manager-analytics", "exclude-from-analytics", "reviewer",
}

// defaultRoles make a fully functional learner.
var defaultRoles = []string{"app-user", "prizing-user"}

const statusPublished = "published"

type membership struct {
	groupID string
	joined  time.Time
}

// user is the v2 record, its UserGroups left empty: groups holds them.
type user struct {
	v2User
	token  string // the v1 user token, minted on first request
	groups []membership
}

func (u *user) groupIDs() []string {
	return fakeserver.Map(u.groups, func(m membership) string { return m.groupID })
}

func (u *user) inGroup(groupID string) bool { return slices.Contains(u.groupIDs(), groupID) }

type assignment struct {
	courseID string
	at       time.Time
}

// group is the v2 record, its HasChildren left false: children says.
type group struct {
	v2Group
	parentID string
	courses  []assignment
}

func (g *group) courseIDs() []string {
	return fakeserver.Map(g.courses, func(a assignment) string { return a.courseID })
}

type collection = v2Collection

type course struct {
	v2Course
	lessonIDs     []string
	collectionIDs []string // the collections holding it
}

func (c *course) published() bool { return strings.EqualFold(c.Status, statusPublished) }

type lesson struct {
	v2Lesson
	courseID string
}

func (l *lesson) published() bool { return strings.EqualFold(l.Status, statusPublished) }

type attempt struct {
	ID, userID, lessonID, courseID string
	started, completed             time.Time
	score                          float64
	done                           bool
}

const (
	eventLessonOpened    = "LessonOpened"
	eventLessonCompleted = "LessonCompleted"
)

type progressEvent struct {
	userID, lessonID, courseID, name string
	at                               time.Time
	score                            *float64 // a completion's
}

type surveyAnswer struct {
	ID, questionID, userID, attemptID, answerDefID, content string
	at                                                      time.Time
}

type launchToken struct {
	userID, lessonID string
	expires          time.Time
}

type ucKey struct{ userID, courseID string }

type ulKey struct{ userID, lessonID string }

// store is the one account behind v1 and v2.
type store struct {
	version      uint64 // counts writes: derived views are rebuilt when it moves
	seq          map[string]int
	users        fakeserver.Table[user]
	userByName   map[string]*user          // lower-cased username
	userByExt    map[string]*user          // external id
	prog         map[ulKey]*lessonProgress // a user's attempts at a lesson
	groups       fakeserver.Table[group]
	collections  fakeserver.Table[collection]
	courses      fakeserver.Table[course]
	lessons      fakeserver.Table[lesson]
	attempts     []*attempt
	events       []*progressEvent
	interactions []Interaction
	questions    fakeserver.Table[wireSurveyQuestion]
	answers      []*surveyAnswer
	webhooks     fakeserver.Table[wireWebhook]
	tokens       map[string]*launchToken
	completions  map[ucKey]time.Time
	views        viewCache
}

func newStore() *store {
	return &store{
		seq:         make(map[string]int),
		tokens:      make(map[string]*launchToken),
		completions: make(map[ucKey]time.Time),
		userByName:  make(map[string]*user),
		userByExt:   make(map[string]*user),
		prog:        make(map[ulKey]*lessonProgress),
	}
}

// newID returns the next id of a kind, such as "usr_3". Ids are never reused.
func (st *store) newID(prefix string) string {
	st.seq[prefix]++
	return fmt.Sprintf("%s_%d", prefix, st.seq[prefix])
}

// ancestors returns g and its ancestors, nearest first.
func (st *store) ancestors(g *group) []*group {
	var out []*group
	for g != nil && len(out) <= st.groups.Len() {
		out = append(out, g)
		if g.parentID == "" {
			break
		}
		g = st.groups.Get(g.parentID)
	}
	return out
}

// access reports whether u can reach the course (assigned to one of its
// groups or their ancestors) and since when.
func (st *store) access(u *user, courseID string) (time.Time, bool) {
	var best time.Time
	found := false
	for _, m := range u.groups {
		for _, g := range st.ancestors(st.groups.Get(m.groupID)) {
			for _, a := range g.courses {
				if a.courseID != courseID {
					continue
				}
				at := laterOf(m.joined, a.at)
				if !found || at.Before(best) {
					best, found = at, true
				}
			}
		}
	}
	return best, found
}

func (st *store) publishedLessons(c *course) []*lesson {
	return slices.DeleteFunc(st.courseLessons(c), func(l *lesson) bool { return !l.published() })
}

func (st *store) courseLessons(c *course) []*lesson {
	var out []*lesson
	for _, id := range c.lessonIDs {
		if l := st.lessons.Get(id); l != nil {
			out = append(out, l)
		}
	}
	return out
}

func (st *store) userByUsername(name string) *user { return st.userByName[strings.ToLower(name)] }

func (st *store) userByExternalID(ext string) *user { return st.userByExt[ext] }

func (st *store) indexUser(u *user, oldName, oldExt string) {
	if oldName != "" && st.userByName[strings.ToLower(oldName)] == u {
		delete(st.userByName, strings.ToLower(oldName))
	}
	if oldExt != "" && st.userByExt[oldExt] == u {
		delete(st.userByExt, oldExt)
	}
	st.userByName[strings.ToLower(u.Name)] = u
	if u.ExternalID != "" {
		st.userByExt[u.ExternalID] = u
	}
}

func (st *store) addAttempt(a *attempt) {
	st.attempts = append(st.attempts, a)
	k := ulKey{a.userID, a.lessonID}
	p := st.prog[k]
	if p == nil {
		p = &lessonProgress{}
		st.prog[k] = p
	}
	p.attempts = append(p.attempts, a)
	p.opened, p.lastActivity = earliest(p.opened, a.started), laterOf(p.lastActivity, a.started)
	if a.done {
		p.fold(a)
	}
}

func (st *store) finish(a *attempt, at time.Time, score float64) {
	a.done, a.completed, a.score = true, at, score
	if p := st.prog[ulKey{a.userID, a.lessonID}]; p != nil {
		p.fold(a)
	}
}

func (p *lessonProgress) fold(a *attempt) {
	p.completed, p.lastActivity = earliest(p.completed, a.completed), laterOf(p.lastActivity, a.completed)
	p.score = a.score
}

// earliest is the earlier of t and u, where a zero time is unset.
func earliest(t, u time.Time) time.Time {
	if t.IsZero() || !u.IsZero() && u.Before(t) {
		return u
	}
	return t
}

func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func groupByInviteCode(st *store, code string) *group {
	return st.groups.Find(func(g *group) bool { return g.InviteCode != "" && strings.EqualFold(g.InviteCode, code) })
}

func children(st *store, g *group) []*group {
	return st.groups.Filter(func(o *group) bool { return o.parentID == g.ID })
}

type lessonProgress struct {
	opened, completed time.Time // first open and first completion
	lastActivity      time.Time
	score             float64    // score of the latest completion
	attempts          []*attempt // oldest first
}

// progress is what the user did in a lesson; nil when nothing. Callers
// must not change it.
func (st *store) progress(userID, lessonID string) *lessonProgress {
	return st.prog[ulKey{userID, lessonID}]
}

type courseState struct {
	unlocked                       bool
	unlockedAt, openedAt, modified time.Time
	completedAt                    time.Time
	completed                      bool
	lessonsTotal, lessonsCompleted int
	percentage, score              float64
	touched                        bool // any recorded progress
}

func (st *store) courseState(u *user, c *course) courseState {
	var cs courseState
	cs.unlockedAt, cs.unlocked = st.access(u, c.ID)
	cs.modified = cs.unlockedAt
	scoreSum, scored := st.addLessons(&cs, u, c)
	if at, ok := st.completions[ucKey{u.ID, c.ID}]; ok {
		cs.completed, cs.completedAt = true, at
		if at.After(cs.modified) {
			cs.modified = at
		}
	}
	if cs.lessonsTotal > 0 {
		cs.percentage = 100 * float64(cs.lessonsCompleted) / float64(cs.lessonsTotal)
	}
	if scored > 0 {
		cs.score = scoreSum / float64(scored)
	}
	return cs
}

// addLessons counts the user's progress in each lesson of c into cs, and
// returns the sum and the number of the scores of the published lessons
// the user completed.
func (st *store) addLessons(cs *courseState, u *user, c *course) (scoreSum float64, scored int) {
	for _, l := range st.courseLessons(c) {
		p := st.progress(u.ID, l.ID)
		if l.published() {
			cs.lessonsTotal++
		}
		if p == nil {
			continue
		}
		cs.touched = true
		if cs.openedAt.IsZero() || p.opened.Before(cs.openedAt) {
			cs.openedAt = p.opened
		}
		if p.lastActivity.After(cs.modified) {
			cs.modified = p.lastActivity
		}
		if l.published() && !p.completed.IsZero() {
			cs.lessonsCompleted++
			scoreSum += p.score
			scored++
		}
	}
	return scoreSum, scored
}

func (st *store) openAttempt(userID, lessonID string) *attempt {
	if a := st.latestAttempt(userID, lessonID); a != nil && !a.done {
		return a
	}
	return nil
}

func (st *store) latestAttempt(userID, lessonID string) *attempt {
	if p := st.progress(userID, lessonID); p != nil {
		return p.attempts[len(p.attempts)-1]
	}
	return nil
}

func (st *store) deleteUser(id string) {
	if u := st.users.Get(id); u != nil {
		delete(st.userByName, strings.ToLower(u.Name))
		if u.ExternalID != "" {
			delete(st.userByExt, u.ExternalID)
		}
	}
	st.users.Remove(id)
	for k := range st.prog {
		if k.userID == id {
			delete(st.prog, k)
		}
	}
	st.attempts = slices.DeleteFunc(st.attempts, func(a *attempt) bool { return a.userID == id })
	st.events = slices.DeleteFunc(st.events, func(e *progressEvent) bool { return e.userID == id })
	st.interactions = slices.DeleteFunc(st.interactions, func(in Interaction) bool { return in.UserID == id })
	st.answers = slices.DeleteFunc(st.answers, func(a *surveyAnswer) bool { return a.userID == id })
	for k := range st.completions {
		if k.userID == id {
			delete(st.completions, k)
		}
	}
	for k, t := range st.tokens {
		if t.userID == id {
			delete(st.tokens, k)
		}
	}
}

func (st *store) deleteGroup(id string) {
	g := st.groups.Get(id)
	if g == nil {
		return
	}
	for _, o := range children(st, g) {
		o.parentID = g.parentID
	}
	for _, u := range st.users.All() {
		u.groups = slices.DeleteFunc(u.groups, func(m membership) bool { return m.groupID == id })
		u.UserGroupsManaged = slices.DeleteFunc(u.UserGroupsManaged, func(s string) bool { return s == id })
	}
	st.groups.Remove(id)
}

func (st *store) setMembers(g *group, userIDs []string, now time.Time) {
	want := make(map[string]bool, len(userIDs))
	for _, id := range userIDs {
		want[id] = true
	}
	for _, u := range st.users.All() {
		switch {
		case want[u.ID] && !u.inGroup(g.ID):
			u.groups = append(u.groups, membership{g.ID, now})
		case !want[u.ID] && u.inGroup(g.ID):
			u.groups = slices.DeleteFunc(u.groups, func(m membership) bool { return m.groupID == g.ID })
		}
	}
}

// setCourses makes the given courses the exact assignments of g, keeping
// the assignment time of courses that stay.
func setCourses(g *group, courseIDs []string, now time.Time) {
	old := g.courses
	g.courses = nil
	seen := make(map[string]bool)
	for _, id := range courseIDs {
		if seen[id] {
			continue
		}
		seen[id] = true
		at := now
		for _, a := range old {
			if a.courseID == id {
				at = a.at
			}
		}
		g.courses = append(g.courses, assignment{id, at})
	}
}

func (st *store) members(g *group) []*user {
	return st.users.Filter(func(u *user) bool { return u.inGroup(g.ID) })
}

func (st *store) pruneTokens(now time.Time) {
	for k, t := range st.tokens {
		if now.Sub(t.expires) > 24*time.Hour {
			delete(st.tokens, k)
		}
	}
}
