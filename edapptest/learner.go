package edapptest

import (
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/edapp-go/edapp"
)

// The learner's side of the fake, as JSON: a launch link opens a lesson,
// and its form post completes or leaves it; /learner/{userId} lists a
// learner's courses with fresh launch links. Neither needs a bearer
// token. The edapp command renders both as HTML pages for a browser.

// maxFormBytes bounds the body of a launch form post.
const maxFormBytes = 64 << 10

// The launch form's actions.
const (
	actionComplete = "complete"
	actionLeave    = "leave"
)

// launchInfo describes a launch: the lesson, the learner and the link's
// expiry on the server's clock.
type launchInfo struct {
	LessonID     string    `json:"lessonId"`
	LessonTitle  string    `json:"lessonTitle"`
	CourseID     string    `json:"courseId"`
	CourseTitle  string    `json:"courseTitle"`
	UserID       string    `json:"userId"`
	Learner      string    `json:"learner"` // "First Last (username)"
	MinimumScore int       `json:"minimumScore"`
	ExpiresAt    time.Time `json:"expiresAt"`
	// ExpiresIn is the whole seconds until ExpiresAt.
	ExpiresIn int64 `json:"expiresInSeconds"`
}

// launchPage is the answer of a launch link: the launch and the attempt
// it opened.
type launchPage struct {
	launchInfo
	AttemptID string `json:"attemptId"`
}

// sentEvent is one event a completion caused and the webhooks it went to.
type sentEvent struct {
	Event    edapp.EventName `json:"event"`
	Webhooks int             `json:"webhooks"`
}

// launchResult is the answer of a launch form post.
type launchResult struct {
	launchInfo
	Completed       bool     `json:"completed"`
	Score           *float64 `json:"score,omitempty"`
	CourseCompleted bool     `json:"courseCompleted"`
	// Deliveries counts the webhook deliveries the completion made.
	Deliveries int         `json:"webhookDeliveries"`
	Events     []sentEvent `json:"events,omitempty"`
}

// serveLaunch is /launch-lesson. It needs no bearer token: the launch token
// signs the learner in. GET (and HEAD) with ?token=&lesson= records a
// lesson open (a new attempt). A form post of the token, lesson and score
// (in the body, or the query) with action=complete completes the lesson as
// Server.CompleteLesson does, and action=leave leaves it opened. A token
// may be used until it expires. form is the decoded body of a POST, read
// before the request was logged.
func (s frontDoor) serveLaunch(w http.ResponseWriter, r *http.Request, form map[string][]string, formStatus int) {
	q := lowerQuery(r)
	param := func(k string) string { // the form first, then the query
		for _, vs := range [][]string{form[k], q[k]} {
			if len(vs) > 0 {
				return vs[0]
			}
		}
		return ""
	}
	var (
		res any
		err *apiErr
	)
	switch action := strings.ToLower(param("action")); {
	case r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodPost:
		w.Header().Set("Allow", "GET, HEAD, POST")
		err = &apiErr{http.StatusMethodNotAllowed, "method " + r.Method + " not allowed"}
	case r.Method != http.MethodPost:
		res, err = s.launch(param("token"), param("lesson"))
	case formStatus != 0:
		err = &apiErr{formStatus, http.StatusText(formStatus)}
	case !sameOrigin(r):
		err = &apiErr{http.StatusForbidden, "a launch page form must be posted from the launch page"}
	case action == actionComplete || action == "":
		res, err = s.completeLaunch(param("token"), param("lesson"), param("score"))
	case action == actionLeave:
		res, err = s.leaveLaunch(param("token"), param("lesson"))
	default:
		err = invalid("unknown action %s (want complete or leave)", strconv.Quote(action))
	}
	if err != nil {
		writeError(w, err.status, err.msg)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// launch checks a launch token and records the open.
func (s frontDoor) launch(tok, lessonID string) (launchPage, *apiErr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.version++
	now := s.now()
	u, l, t, err := checkLaunch(s.st, tok, lessonID, now)
	if err != nil {
		return launchPage{}, err
	}
	a := s.st.open(u, l, now)
	return launchPage{launchInfo: s.st.launchInfo(u, l, t, now), AttemptID: a.id}, nil
}

// completeLaunch completes the lesson of a valid launch token with the
// score given by the form, through the same code as CompleteLesson. A
// request without a valid, unexpired token changes nothing.
func (s frontDoor) completeLaunch(tok, lessonID, scoreText string) (res launchResult, _ *apiErr) {
	score, serr := strconv.ParseFloat(strings.TrimSpace(scoreText), 64)
	if serr == nil {
		serr = checkScore(score)
	}
	err := s.emit(func(st *store, now time.Time) ([]outEvent, error) {
		u, l, t, err := checkLaunch(st, tok, lessonID, now)
		if err != nil {
			return nil, err
		}
		if serr != nil {
			return nil, invalid("score must be a number from 0 to 100")
		}
		events := st.complete(u, l, score, now)
		res = launchResult{launchInfo: st.launchInfo(u, l, t, now), Completed: true, Score: &score}
		res.count(st, events)
		return events, nil
	})
	if err != nil {
		return res, asAPIErr(err)
	}
	return res, nil
}

// count records the events a completion caused and the webhooks each
// goes to.
func (res *launchResult) count(st *store, events []outEvent) {
	for _, e := range events {
		n := 0
		for _, w := range st.webhooks.All() {
			if w.eventName == e.name {
				n++
			}
		}
		res.Deliveries += n
		res.CourseCompleted = res.CourseCompleted || e.name == edapp.EventCourseCompleted
		res.Events = append(res.Events, sentEvent{Event: e.name, Webhooks: n})
	}
}

// leaveLaunch checks the token and changes nothing: the lesson stays
// opened but not completed.
func (s frontDoor) leaveLaunch(tok, lessonID string) (launchResult, *apiErr) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	now := s.now()
	u, l, t, err := checkLaunch(s.st, tok, lessonID, now)
	if err != nil {
		return launchResult{}, err
	}
	return launchResult{launchInfo: s.st.launchInfo(u, l, t, now)}, nil
}

// checkLaunch finds the user and lesson of a launch token that is valid
// for lessonID at now.
func checkLaunch(st *store, tok, lessonID string, now time.Time) (*user, *lesson, *launchToken, *apiErr) {
	t := st.tokens[tok]
	fail := func(status int, msg string) (*user, *lesson, *launchToken, *apiErr) {
		return nil, nil, nil, &apiErr{status, msg}
	}
	switch {
	case tok == "":
		return fail(http.StatusUnauthorized, "launch token required")
	case t == nil:
		return fail(http.StatusUnauthorized, "unknown launch token")
	case !now.Before(t.expires):
		return fail(http.StatusGone, "launch token expired: launch tokens are valid for 20 minutes; fetch a fresh link")
	case lessonID == "":
		return fail(http.StatusBadRequest, "lesson is required")
	case lessonID != t.lessonID:
		return fail(http.StatusBadRequest, "launch token is for another lesson")
	}
	u, l := st.users.Get(t.userID), st.lessons.Get(t.lessonID)
	if u == nil || l == nil {
		return fail(http.StatusNotFound, "lesson or user no longer exists")
	}
	return u, l, t, nil
}

func (st *store) launchInfo(u *user, l *lesson, t *launchToken, now time.Time) launchInfo {
	return launchInfo{
		LessonID: l.id, LessonTitle: l.title, CourseID: l.courseID,
		CourseTitle:  orZero(st.courses.Get(l.courseID)).title,
		UserID:       u.id,
		Learner:      learnerName(u),
		MinimumScore: l.minimumScore,
		ExpiresAt:    t.expires.UTC(),
		ExpiresIn:    int64(t.expires.Sub(now).Round(time.Second) / time.Second),
	}
}

// learnerName is "First Last (username)", or the username alone.
func learnerName(u *user) string {
	name := strings.TrimSpace(u.firstName + " " + u.lastName)
	if name == "" {
		return u.username
	}
	return name + " (" + u.username + ")"
}

// asAPIErr is err with its status, or a 500.
func asAPIErr(err error) *apiErr {
	if ae, ok := err.(*apiErr); ok {
		return ae
	}
	return &apiErr{http.StatusInternalServerError, "internal error"}
}

// readForm reads the url-encoded body of a launch form post, at most
// maxFormBytes, before the request is logged. It returns the fields by
// lower-case name, the launch tokens found (in every form they may take,
// to scrub from the log) and, when the body cannot be taken, the status
// to answer.
func readForm(r *http.Request) (form map[string][]string, toks []string, status int) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil, 0
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, _ := mime.ParseMediaType(ct); mt != "application/x-www-form-urlencoded" {
			return nil, nil, http.StatusUnsupportedMediaType
		}
	}
	if r.ContentLength > maxFormBytes {
		return nil, nil, http.StatusRequestEntityTooLarge
	}
	b, _ := io.ReadAll(io.LimitReader(r.Body, maxFormBytes+1))
	if len(b) > maxFormBytes {
		return nil, nil, http.StatusRequestEntityTooLarge
	}
	_, toks = redactQuery(string(b), true)
	vals, _ := url.ParseQuery(string(b)) // keeps the pairs that decode
	form = make(map[string][]string, len(vals))
	for k, v := range vals {
		lk := strings.ToLower(k)
		form[lk] = append(form[lk], v...)
	}
	return form, toks, 0
}

// sameOrigin refuses a post that a browser says came from another site.
// The launch token in the form is what authorises the post; this only
// keeps other pages from posting forms at the fake.
func sameOrigin(r *http.Request) bool {
	if strings.EqualFold(r.Header.Get("Sec-Fetch-Site"), "cross-site") {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true // not a browser, or an old one
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host)
}

// learnerHome is the answer of GET /learner/{userId}.
type learnerHome struct {
	UserID  string     `json:"userId"`
	Learner string     `json:"learner"`
	Courses []v1Course `json:"courses"`
}

// serveLearner is GET /learner/{userId}: the learner's published courses
// and lessons, as GET /v1/users/{id}/courses answers them, each lesson with
// a fresh launch link. It needs no bearer token and shows nothing the API
// token guards beyond what a learner sees.
func (s frontDoor) serveLearner(w http.ResponseWriter, r *http.Request, userID string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed")
		return
	}
	var home learnerHome
	found := func() bool {
		s.mu.Lock() // minting launch tokens writes
		defer s.mu.Unlock()
		s.st.version++
		u := s.st.users.Get(userID)
		if u == nil {
			return false
		}
		c := &exchange{s: s.server, st: s.st, r: r, now: s.now()}
		home = learnerHome{UserID: u.id, Learner: learnerName(u), Courses: c.userCourses(u)}
		return true
	}()
	if !found {
		writeError(w, http.StatusNotFound, "user "+strconv.Quote(userID)+" not found")
		return
	}
	writeJSON(w, http.StatusOK, home)
}

// checkScore is the rule for a completion's score.
func checkScore(score float64) error {
	if math.IsNaN(score) || score < 0 || score > 100 {
		return invalid("score %v is outside 0-100", score)
	}
	return nil
}
