package edapptest

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/fakeserver"
)

// CourseSpec describes a course for AddCourse.
type CourseSpec struct {
	Title       string // required
	ExternalID  string // optional; unique among courses
	Description string
	// CollectionIDs are the collections holding the course (optional).
	CollectionIDs []string
	Status        string // "published" (the default) or anything else, such as "unpublished"
	Locale        string // default "en"
	Duration      int    // as the catalog reports it
	ThumbnailURL  string
	Lessons       []LessonSpec // added in order
	Created       time.Time    // the course's and its lessons' dates; default: the server's clock
}

// LessonSpec describes a lesson of a [CourseSpec].
type LessonSpec struct {
	Title        string // required
	ExternalID   string // optional; unique among lessons
	Description  string
	Status       string // "published" (the default) or anything else
	MinimumScore int    // an attempt succeeds when its score reaches it
}

// UserSpec describes a user for AddUser.
type UserSpec struct {
	Username      string // required; unique without regard to case
	Email         string
	FirstName     string
	LastName      string
	ExternalID    string // optional; unique within the account
	TimeZone      string
	Roles         []string // each one of the seven roles, such as "app-user"
	Groups        []string // group ids the user belongs to
	ManagedGroups []string // group ids the user manages
	CustomFields  map[string]string
	InviteCode    string    // optional: the user lands in the group with this code
	Joined        time.Time // when the user joined its groups; default: the server's clock
}

// Interaction kinds of the v1 course report.
const (
	InteractionView  = "view"  // time spent on a slide
	InteractionSlide = "slide" // an answer on a slide
)

// Interaction is one slide interaction for AddInteraction.
type Interaction struct {
	UserID   string        // required
	LessonID string        // required
	Slide    string        // slide name; default "Slide 1"
	Type     string        // InteractionView (default) or InteractionSlide
	Duration time.Duration // for views
	Correct  bool          // for slide answers
	TooSlow  bool          // for slide answers
	Time     time.Time     // default: the server's clock
}

// SurveyQuestionSpec describes a survey question for AddSurveyQuestion.
type SurveyQuestionSpec struct {
	LessonID string // required
	SlideID  string // default: a generated id
	Type     string // "open" (default), "rating" or "multiple-choice"
	Content  string // the question (HTML, as the real service sends it)
	// Answers are the answer options. A rating question without options
	// gets "1" to "5"; a multiple-choice question needs at least one.
	Answers []string
}

func (s *Server) locked(fn func(st *store, now time.Time) error) error {
	return s.emit(func(st *store, now time.Time) ([]outEvent, error) { return nil, fn(st, now) })
}

func (st *store) user(id string) (*user, error)     { return find(&st.users, "user", id) }
func (st *store) group(id string) (*group, error)   { return find(&st.groups, "user group", id) }
func (st *store) course(id string) (*course, error) { return find(&st.courses, "course", id) }
func (st *store) lesson(id string) (*lesson, error) { return find(&st.lessons, "lesson", id) }

func find[T any](t *fakeserver.Table[T], what, id string) (*T, error) {
	if v := t.Get(id); v != nil {
		return v, nil
	}
	return nil, notFound("%s %q not found", what, id)
}

func userLesson(st *store, userID, lessonID string) (*user, *lesson, error) {
	u, errU := st.user(userID)
	l, errL := st.lesson(lessonID)
	return u, l, cmp.Or(errU, errL)
}

// CollectionSpec describes a course collection for AddCollection.
type CollectionSpec struct {
	Title       string // required
	ExternalID  string // optional; unique among collections
	Description string
}

// AddCollection adds a course collection and returns its id.
func (s Seeding) AddCollection(spec CollectionSpec) (string, error) {
	var id string
	err := s.locked(func(st *store, _ time.Time) error {
		switch {
		case strings.TrimSpace(spec.Title) == "":
			return invalid("collection title is required")
		case spec.ExternalID != "" && st.collections.Find(func(c *collection) bool { return c.ExternalID == spec.ExternalID }) != nil:
			return conflict("collection external id %q is taken", spec.ExternalID)
		}
		id = st.newID("col")
		st.collections.Add(id, &collection{ID: id, ExternalID: spec.ExternalID, Title: spec.Title, Description: spec.Description})
		return nil
	})
	return id, err
}

// AddCourse adds a course with its lessons and returns the ids.
func (s Seeding) AddCourse(c CourseSpec) (courseID string, lessonIDs []string, err error) {
	err = s.locked(func(st *store, now time.Time) error {
		courseID, lessonIDs, err = addCourse(st, c, fakeserver.OrTime(c.Created, now))
		return err
	})
	return courseID, lessonIDs, err
}

func addCourse(st *store, spec CourseSpec, now time.Time) (string, []string, error) {
	if strings.TrimSpace(spec.Title) == "" {
		return "", nil, invalid("course title is required")
	}
	for _, id := range spec.CollectionIDs {
		if st.collections.Get(id) == nil {
			return "", nil, notFound("course collection %q not found", id)
		}
	}
	if spec.ExternalID != "" && st.courses.Find(func(o *course) bool { return o.ExternalID == spec.ExternalID }) != nil {
		return "", nil, conflict("course external id %q is taken", spec.ExternalID)
	}
	seen := map[string]bool{}
	for _, l := range spec.Lessons {
		if err := checkLesson(st, l); err != nil {
			return "", nil, err
		}
		if l.ExternalID != "" && seen[l.ExternalID] {
			return "", nil, conflict("lesson external id %q is taken", l.ExternalID)
		}
		seen[l.ExternalID] = true
	}
	c := &course{v2Course: v2Course{
		ID: st.newID("crs"), ExternalID: spec.ExternalID, Title: spec.Title,
		Description: spec.Description, Status: fakeserver.OrDefault(spec.Status, statusPublished),
		Locale: fakeserver.OrDefault(spec.Locale, "en"), ThumbnailURL: spec.ThumbnailURL,
		Duration: spec.Duration, CreatedDateTime: wt(now), ModifiedDateTime: wt(now),
	}, collectionIDs: dedupe(spec.CollectionIDs)}
	st.courses.Add(c.ID, c)
	ids := []string{}
	for _, l := range spec.Lessons {
		ids = append(ids, addLesson(st, c, l, now).ID)
	}
	return c.ID, ids, nil
}

func checkLesson(st *store, l LessonSpec) error {
	switch {
	case strings.TrimSpace(l.Title) == "":
		return invalid("lesson title is required")
	case l.ExternalID != "" && st.lessons.Find(func(o *lesson) bool { return o.ExternalID == l.ExternalID }) != nil:
		return conflict("lesson external id %q is taken", l.ExternalID)
	}
	return nil
}

func addLesson(st *store, c *course, spec LessonSpec, now time.Time) *lesson {
	l := &lesson{v2Lesson{
		ID: st.newID("les"), ExternalID: spec.ExternalID, Title: spec.Title,
		Description: spec.Description, Status: fakeserver.OrDefault(spec.Status, statusPublished),
		MinimumScore: spec.MinimumScore,
	}, c.ID}
	st.lessons.Add(l.ID, l)
	c.lessonIDs = append(c.lessonIDs, l.ID)
	c.ModifiedDateTime = wt(now)
	return l
}

// GroupSpec describes a user group for AddGroup.
type GroupSpec struct {
	Name       string    // required
	ParentID   string    // optional: the group becomes a child of this one
	InviteCode string    // optional; unique without regard to case
	CourseIDs  []string  // courses assigned to the group (see AssignCourse)
	Created    time.Time // when CourseIDs were assigned; default: the server's clock
}

// AddGroup adds a user group and returns its id.
func (s Seeding) AddGroup(spec GroupSpec) (string, error) {
	var id string
	err := s.locked(func(st *store, now time.Time) error {
		for _, c := range spec.CourseIDs {
			if _, err := st.course(c); err != nil {
				return err
			}
		}
		g, err := addGroup(st, spec.Name, spec.ParentID, strings.TrimSpace(spec.InviteCode))
		if err == nil {
			id = g.ID
			setCourses(g, spec.CourseIDs, fakeserver.OrTime(spec.Created, now))
		}
		return err
	})
	return id, err
}

// GroupMemberSpec makes a user a member of a group, for AddGroupMember.
type GroupMemberSpec struct {
	GroupID, UserID string // both required
}

// AddGroupMember makes the user a member of the group (no change when it
// already is).
func (s Seeding) AddGroupMember(spec GroupMemberSpec) error {
	return s.groupUser(spec.GroupID, spec.UserID, func(g *group, u *user, now time.Time) {
		if !u.inGroup(g.ID) {
			u.groups = append(u.groups, membership{g.ID, now})
		}
	})
}

// RemoveUserFromGroup ends the user's membership of the group.
func (s Seeding) RemoveUserFromGroup(groupID, userID string) error {
	return s.groupUser(groupID, userID, func(g *group, u *user, _ time.Time) {
		u.groups = slices.DeleteFunc(u.groups, func(m membership) bool { return m.groupID == g.ID })
	})
}

func (s Seeding) groupUser(groupID, userID string, fn func(*group, *user, time.Time)) error {
	return s.locked(func(st *store, now time.Time) error {
		g, errG := st.group(groupID)
		u, errU := st.user(userID)
		if err := cmp.Or(errG, errU); err != nil {
			return err
		}
		fn(g, u, now)
		return nil
	})
}

// AddUser adds a user and returns its id.
func (s Seeding) AddUser(spec UserSpec) (string, error) {
	u := &user{}
	err := s.locked(func(st *store, now time.Time) error {
		return applyUser(st, u, spec.patch(), fakeserver.OrTime(spec.Joined, now))
	})
	return u.ID, err
}

// patch is the user write a spec makes: every field set, lists only when
// given.
func (spec UserSpec) patch() userPatch {
	return userPatch{
		Name: &spec.Username, Email: &spec.Email, FirstName: &spec.FirstName,
		LastName: &spec.LastName, ExternalID: &spec.ExternalID, TimeZone: &spec.TimeZone,
		InviteCode: &spec.InviteCode, Roles: given(spec.Roles),
		Groups: given(spec.Groups), ManagedUserGroups: given(spec.ManagedGroups), CustomFields: given(spec.CustomFields),
	}
}

func given[T ~[]string | ~map[string]string](v T) *T {
	if v == nil {
		return nil
	}
	return &v
}

// AssignCourse assigns a course to a group.
func (s Seeding) AssignCourse(groupID, courseID string) error {
	return s.locked(func(st *store, now time.Time) error {
		g, errG := st.group(groupID)
		_, errC := st.course(courseID)
		if err := cmp.Or(errG, errC); err != nil {
			return err
		}
		if !slices.Contains(g.courseIDs(), courseID) {
			g.courses = append(g.courses, assignment{courseID, now})
		}
		return nil
	})
}

func (st *store) open(u *user, l *lesson, at time.Time) *attempt {
	a := &attempt{ID: st.newID("att"), userID: u.ID, lessonID: l.ID, courseID: l.courseID, started: at}
	st.addAttempt(a)
	st.addEvent(u, l, eventLessonOpened, at, nil)
	return a
}

// addEvent records a lesson progress event, which makes the user active.
func (st *store) addEvent(u *user, l *lesson, name string, at time.Time, score *float64) {
	st.events = append(st.events, &progressEvent{u.ID, l.ID, l.courseID, name, at, score})
	u.LastActiveDate.Time = laterOf(u.LastActiveDate.Time, at)
}

// complete closes the user's open attempt (opening one first when none is
// open) and returns the events to send: LessonCompletedEvent, then
// CourseCompletedEvent when the course's published lessons are all
// completed for the first time; the course counts as completed when the
// last of them first was, so that a history seeded out of order dates it
// right.
func (st *store) complete(u *user, l *lesson, score float64, at time.Time) []outEvent {
	a := st.openAttempt(u.ID, l.ID)
	if a == nil {
		a = st.open(u, l, at)
	}
	st.finish(a, at, score)
	st.addEvent(u, l, eventLessonCompleted, at, &score)
	c := st.courses.Get(l.courseID)
	vals := userFields(u)
	vals["courseId"], vals["courseTitle"], vals["timestamp"] = c.ID, c.Title, at
	lv := maps.Clone(vals)
	lv["lessonId"], lv["lessonTitle"], lv["score"] = l.ID, l.Title, score
	out := []outEvent{{name: edapp.EventLessonCompleted, vals: lv}}
	key := ucKey{u.ID, c.ID}
	if _, done := st.completions[key]; done {
		return out
	}
	last, ok := lastFirstCompletion(st, u, c)
	if !ok {
		return out
	}
	st.completions[key] = last
	return append(out, outEvent{name: edapp.EventCourseCompleted, vals: vals})
}

// AttemptSpec describes a lesson attempt for AddAttempt.
type AttemptSpec struct {
	UserID   string    // required
	LessonID string    // required
	Started  time.Time // default: the server's clock
	// Completed is when the attempt ended with Score (0 to 100); zero
	// leaves it open: the lesson opened, not completed.
	Completed time.Time
	Score     float64
	// Deliver sends, for a completed attempt, the webhooks CompleteLesson
	// sends, dated Completed; by default nothing is delivered.
	Deliver bool
}

// AddAttempt records a lesson attempt as it happened, at its own times: the
// attempt, its LessonOpened progress event and, when completed, its
// LessonCompleted event, and the course's completion when this completes its
// last published lesson.
func (s Seeding) AddAttempt(spec AttemptSpec) (string, error) {
	if err := checkScore(spec.Score); err != nil {
		return "", err
	}
	if !spec.Completed.IsZero() && spec.Completed.Before(spec.Started) {
		return "", invalid("attempt completed at %v, before it started at %v", spec.Completed, spec.Started)
	}
	var id string
	err := s.emit(func(st *store, now time.Time) ([]outEvent, error) {
		u, l, err := userLesson(st, spec.UserID, spec.LessonID)
		if err != nil {
			return nil, err
		}
		id = st.open(u, l, fakeserver.OrTime(spec.Started, now)).ID
		if spec.Completed.IsZero() {
			return nil, nil
		}
		events := st.complete(u, l, spec.Score, spec.Completed)
		if !spec.Deliver {
			events = nil
		}
		return events, nil
	})
	return id, err
}

// OpenLesson records that the user opened a lesson: a new attempt and a
// LessonOpened progress event, and returns the attempt id.
func (s Seeding) OpenLesson(userID, lessonID string) (string, error) {
	var id string
	err := s.locked(func(st *store, now time.Time) error {
		u, l, err := userLesson(st, userID, lessonID)
		if err == nil {
			id = st.open(u, l, now).ID
		}
		return err
	})
	return id, err
}

// CompleteLesson records that the user completed a lesson with a score from 0
// to 100, and delivers LessonCompletedEvent (and CourseCompletedEvent when
// it completes the course) before it returns.
func (s Seeding) CompleteLesson(userID, lessonID string, score float64) error {
	if err := checkScore(score); err != nil {
		return err
	}
	return s.emit(func(st *store, now time.Time) ([]outEvent, error) {
		u, l, err := userLesson(st, userID, lessonID)
		if err != nil {
			return nil, err
		}
		return st.complete(u, l, score, now), nil
	})
}

// AddInteraction records a slide interaction for the v1 course report.
func (s Seeding) AddInteraction(in Interaction) error {
	kind := fakeserver.OrDefault(in.Type, InteractionView)
	if kind != InteractionView && kind != InteractionSlide {
		return invalid("interaction type %q (want view or slide)", in.Type)
	}
	return s.locked(func(st *store, now time.Time) error {
		u, _, err := userLesson(st, in.UserID, in.LessonID)
		if err == nil {
			in.UserID, in.Slide, in.Type = u.ID, fakeserver.OrDefault(in.Slide, "Slide 1"), kind
			in.Time = fakeserver.OrTime(in.Time, now)
			st.interactions = append(st.interactions, in)
		}
		return err
	})
}

// PublishCourse sets the course's status to "published" and delivers
// CoursePublishedEvent once per user who can reach the course (or once with
// empty user fields when nobody can).
func (s Seeding) PublishCourse(courseID string) error {
	return s.emit(func(st *store, now time.Time) ([]outEvent, error) {
		c, err := st.course(courseID)
		if err != nil {
			return nil, err
		}
		c.Status, c.ModifiedDateTime = statusPublished, wt(now)
		base := map[string]any{"courseId": c.ID, "courseTitle": c.Title}
		out := []outEvent{}
		for _, u := range st.users.Filter(func(u *user) bool { _, ok := st.access(u, c.ID); return ok }) {
			vals := userFields(u)
			maps.Copy(vals, base)
			out = append(out, outEvent{name: edapp.EventCoursePublished, vals: vals})
		}
		if len(out) == 0 {
			out = append(out, outEvent{name: edapp.EventCoursePublished, vals: base})
		}
		return out, nil
	})
}

// SendCourseReminder delivers CourseReminderWebHookEvent for a user and a
// course.
func (s Seeding) SendCourseReminder(userID, courseID string, dueDate time.Time) error {
	return s.emit(func(st *store, _ time.Time) ([]outEvent, error) {
		u, errU := st.user(userID)
		c, errC := st.course(courseID)
		if err := cmp.Or(errU, errC); err != nil {
			return nil, err
		}
		vals := userFields(u)
		vals["courseId"], vals["courseTitle"], vals["dueDate"] = c.ID, c.Title, dueDate
		vals["courseLink"] = s.URL + "/courses/" + c.ID
		return []outEvent{{name: edapp.EventCourseReminderWebHook, vals: vals}}, nil
	})
}

// Emit delivers any of the ten events ([edapp.EventNames]) with the given
// fields, in the service's order; a missing field is its zero, a field the
// event lacks is left out, and the user fields default to those of the
// user fields["userId"] names.
func (s Seeding) Emit(eventName edapp.EventName, fields map[string]any) error {
	if !slices.Contains(edapp.EventNames(), eventName) {
		return invalid("unknown event %q", eventName)
	}
	return s.emit(func(st *store, _ time.Time) ([]outEvent, error) {
		id, _ := fields["userId"].(string)
		vals := userFields(st.users.Get(id))
		maps.Copy(vals, fields)
		return []outEvent{{name: eventName, vals: vals}}, nil
	})
}

// WebhookSpec describes a webhook for AddWebhook.
type WebhookSpec struct {
	EventName edapp.EventName   // required: one of edapp.EventNames
	URL       string            // required: an absolute http or https URL
	Headers   map[string]string // sent with every delivery
}

// AddWebhook registers a webhook, as POST /v2/webhooks does, and returns
// its id.
func (s Seeding) AddWebhook(spec WebhookSpec) (string, error) {
	var id string
	err := s.locked(func(st *store, _ time.Time) error {
		w, err := addWebhook(st, spec.EventName, spec.URL, spec.Headers)
		if err == nil {
			id = w.ID
		}
		return err
	})
	return id, err
}

var questionTypes = []string{"open", "rating", "multiple-choice"}

// AddSurveyQuestion adds a survey question to a lesson and returns its id
// and the ids of its answer options.
func (s Seeding) AddSurveyQuestion(q SurveyQuestionSpec) (questionID string, answerIDs []string, err error) {
	qtype := fakeserver.OrDefault(q.Type, "open")
	if !slices.Contains(questionTypes, qtype) {
		return "", nil, invalid("question type %q (want open, rating or multiple-choice)", q.Type)
	}
	answers := q.Answers
	switch {
	case qtype == "rating" && len(answers) == 0:
		answers = []string{"1", "2", "3", "4", "5"}
	case qtype == "multiple-choice" && len(answers) == 0:
		return "", nil, invalid("a multiple-choice question needs answers")
	}
	err = s.locked(func(st *store, _ time.Time) error {
		l, err := st.lesson(q.LessonID)
		if err != nil {
			return err
		}
		sq := &wireSurveyQuestion{ID: st.newID("srq"), CourseID: l.courseID, LessonID: l.ID,
			SlideID: q.SlideID, QuestionType: qtype, QuestionContent: q.Content}
		if sq.SlideID == "" {
			sq.SlideID = st.newID("sld")
		}
		sq.Answers = fakeserver.Map(answers, func(a string) wireAnswerDef { return wireAnswerDef{st.newID("sad"), a} })
		answerIDs = fakeserver.Map(sq.Answers, func(d wireAnswerDef) string { return d.ID })
		st.questions.Add(sq.ID, sq)
		questionID = sq.ID
		return nil
	})
	return questionID, answerIDs, err
}

// SurveyAnswerSpec describes a user's answer to a survey question, for
// AddSurveyAnswer.
type SurveyAnswerSpec struct {
	UserID     string // required
	QuestionID string // required
	// Answer is an answer option's id or content; an open question also
	// takes free text.
	Answer string
	Time   time.Time // default: the server's clock
}

// AddSurveyAnswer records a user's answer to a survey question and returns
// the answer id.
func (s Seeding) AddSurveyAnswer(spec SurveyAnswerSpec) (string, error) {
	var id string
	answer := spec.Answer
	err := s.locked(func(st *store, now time.Time) error {
		u, errU := st.user(spec.UserID)
		q, errQ := find(&st.questions, "survey question", spec.QuestionID)
		if err := cmp.Or(errU, errQ); err != nil {
			return err
		}
		a := &surveyAnswer{ID: st.newID("sra"), questionID: q.ID, userID: u.ID, at: fakeserver.OrTime(spec.Time, now), content: answer}
		if i := slices.IndexFunc(q.Answers, func(d wireAnswerDef) bool { return d.ID == answer || d.Content == answer }); i >= 0 {
			a.answerDefID, a.content = q.Answers[i].ID, q.Answers[i].Content
		} else if q.QuestionType != "open" {
			return invalid("%q is not an answer option of question %q", answer, q.ID)
		}
		if at := st.latestAttempt(u.ID, q.LessonID); at != nil {
			a.attemptID = at.ID
		}
		st.answers = append(st.answers, a)
		id = a.ID
		return nil
	})
	return id, err
}

// lastFirstCompletion reports when u first completed the last of the
// course's published lessons, and false while one is not completed.
func lastFirstCompletion(st *store, u *user, c *course) (time.Time, bool) {
	var last time.Time
	pub := st.publishedLessons(c)
	for _, l := range pub {
		p := st.progress(u.ID, l.ID)
		if p == nil || p.completed.IsZero() {
			return time.Time{}, false
		}
		if p.completed.After(last) {
			last = p.completed
		}
	}
	return last, len(pub) > 0
}

func checkScore(score float64) error {
	if math.IsNaN(score) || score < 0 || score > 100 {
		return invalid("score %v is outside 0-100", score)
	}
	return nil
}
