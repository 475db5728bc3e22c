package fakeserve

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
)

// The learner's side of the fake, as JSON, built on the fake's public API:
// a launch link opens a lesson, and its form post completes or leaves it;
// /learner/{userId} lists a learner's courses with fresh launch links.
// Neither needs a bearer token, and neither reaches the fake's request
// log, so no launch token is ever kept there. Handler renders both as HTML.

// The launch form's actions.
const (
	actionComplete = "complete"
	actionLeave    = "leave"
)

// launchInfo describes a launch: the lesson, the learner and the link's
// expiry on the fake's clock.
type launchInfo struct {
	LessonID     string    `json:"lessonId"`
	LessonTitle  string    `json:"lessonTitle"`
	CourseID     string    `json:"courseId"`
	CourseTitle  string    `json:"courseTitle"`
	UserID       string    `json:"userId"`
	Learner      string    `json:"learner"` // "First Last (username)"
	MinimumScore int       `json:"minimumScore"`
	ExpiresAt    time.Time `json:"expiresAt"`
	ExpiresIn    int64     `json:"expiresInSeconds"`
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
	Completed       bool        `json:"completed"`
	Score           *float64    `json:"score,omitempty"`
	CourseCompleted bool        `json:"courseCompleted"`
	Deliveries      int         `json:"webhookDeliveries"`
	Events          []sentEvent `json:"events,omitempty"`
}

// learnerHome is the answer of GET /learner/{userId}; its courses are what
// GET /v1/users/{userId}/courses answers.
type learnerHome struct {
	UserID  string          `json:"userId"`
	Learner string          `json:"learner"`
	Courses json.RawMessage `json:"courses"`
}

// pageErr is an error answer of the learner's side.
type pageErr struct {
	status int
	msg    string
}

// jsonHandler serves the learner's side as JSON and passes every other
// request to the fake.
func jsonHandler(fake *edapptest.Server) http.Handler {
	api := fake.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		segs := strings.Split(strings.Trim(r.URL.EscapedPath(), "/"), "/")
		switch {
		case len(segs) == 1 && strings.EqualFold(segs[0], "launch-lesson"):
			launchJSON(fake, w, r)
		case len(segs) == 2 && strings.EqualFold(segs[0], "learner"):
			id, err := url.PathUnescape(segs[1])
			if err != nil {
				answer(w, nil, &pageErr{http.StatusBadRequest, "malformed path"})
				return
			}
			learnerJSON(fake, w, r, id)
		default:
			api.ServeHTTP(w, r)
		}
	})
}

// launchJSON is /launch-lesson. GET (and HEAD) with ?token=&lesson= opens
// the lesson (a new attempt). A form post of the token, lesson and score
// (in the body, or the query) with action=complete completes it as
// edapptest's CompleteLesson does, and action=leave leaves it opened.
func launchJSON(fake *edapptest.Server, w http.ResponseWriter, r *http.Request) {
	var form url.Values
	var formErr *pageErr
	if r.Method == http.MethodPost {
		form, formErr = readForm(r)
	}
	param := func(k string) string { return lowerParam(form, k, lowerParam(r.URL.Query(), k, "")) }
	var res any
	var err *pageErr
	switch action := strings.ToLower(param("action")); {
	case r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodPost:
		w.Header().Set("Allow", "GET, HEAD, POST")
		err = &pageErr{http.StatusMethodNotAllowed, "method " + r.Method + " not allowed"}
	case r.Method != http.MethodPost:
		res, err = openLaunch(fake, param("token"), param("lesson"))
	case formErr != nil:
		err = formErr
	case !sameOrigin(r):
		err = &pageErr{http.StatusForbidden, "a launch page form must be posted from the launch page"}
	case action == actionComplete || action == "":
		res, err = completeLaunch(fake, param("token"), param("lesson"), param("score"))
	case action == actionLeave:
		info, lerr := checkLaunch(fake, param("token"), param("lesson"))
		res, err = launchResult{launchInfo: info}, lerr
	default:
		err = &pageErr{http.StatusBadRequest, "unknown action " + strconv.Quote(action) + " (want complete or leave)"}
	}
	answer(w, res, err)
}

// answer writes res, or err, as JSON.
func answer(w http.ResponseWriter, res any, err *pageErr) {
	status := http.StatusOK
	if err != nil {
		status, res = err.status, map[string]string{"message": err.msg}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(res)
}

// openLaunch checks a launch token and records the open.
func openLaunch(fake *edapptest.Server, tok, lessonID string) (launchPage, *pageErr) {
	info, err := checkLaunch(fake, tok, lessonID)
	if err != nil {
		return launchPage{}, err
	}
	id, oerr := fake.OpenLesson(info.UserID, info.LessonID)
	if oerr != nil {
		return launchPage{}, fakeErr(oerr)
	}
	return launchPage{launchInfo: info, AttemptID: id}, nil
}

// completeLaunch completes the lesson of a valid launch token with the
// form's score, through CompleteLesson, and says which events it sent to
// how many webhooks. A request without a valid token changes nothing.
func completeLaunch(fake *edapptest.Server, tok, lessonID, scoreText string) (launchResult, *pageErr) {
	info, err := checkLaunch(fake, tok, lessonID)
	if err != nil {
		return launchResult{}, err
	}
	score, serr := strconv.ParseFloat(strings.TrimSpace(scoreText), 64)
	if serr != nil || math.IsNaN(score) || score < 0 || score > 100 {
		return launchResult{}, &pageErr{http.StatusBadRequest, "score must be a number from 0 to 100"}
	}
	courseDone := func() bool {
		return slices.ContainsFunc(fake.Snapshot().Progress, func(p edapptest.SnapshotProgress) bool {
			return p.UserID == info.UserID && p.CourseID == info.CourseID && !p.CompletedDateTime.Time.IsZero()
		})
	}
	wasDone, sent := courseDone(), len(fake.Deliveries())
	if err := fake.CompleteLesson(info.UserID, info.LessonID, score); err != nil {
		return launchResult{}, fakeErr(err)
	}
	res := launchResult{launchInfo: info, Completed: true, Score: &score, CourseCompleted: !wasDone && courseDone()}
	events := []edapp.EventName{edapp.EventLessonCompleted}
	if res.CourseCompleted {
		events = append(events, edapp.EventCourseCompleted)
	}
	for _, e := range events {
		n := 0
		for _, d := range fake.Deliveries()[sent:] {
			if d.EventName == e && d.RedeliveryOf == "" {
				n++
			}
		}
		res.Deliveries += n
		res.Events = append(res.Events, sentEvent{Event: e, Webhooks: n})
	}
	return res, nil
}

// checkLaunch describes the launch of a token that is valid for lessonID
// now, on the fake's clock.
func checkLaunch(fake *edapptest.Server, tok, lessonID string) (launchInfo, *pageErr) {
	userID, tokLesson, expires, ok := fake.LaunchToken(tok)
	now := fake.Now()
	fail := func(status int, msg string) (launchInfo, *pageErr) { return launchInfo{}, &pageErr{status, msg} }
	switch {
	case tok == "":
		return fail(http.StatusUnauthorized, "launch token required")
	case !ok:
		return fail(http.StatusUnauthorized, "unknown launch token")
	case !now.Before(expires):
		return fail(http.StatusGone, "launch token expired: launch tokens are valid for 20 minutes; fetch a fresh link")
	case lessonID == "":
		return fail(http.StatusBadRequest, "lesson is required")
	case lessonID != tokLesson:
		return fail(http.StatusBadRequest, "launch token is for another lesson")
	}
	snap := fake.Snapshot()
	u := find(snap.Users, func(u edapptest.SnapshotUser) bool { return u.ID == userID })
	l := find(snap.Lessons, func(l edapptest.SnapshotLesson) bool { return l.ID == lessonID })
	if u == nil || l == nil {
		return fail(http.StatusNotFound, "lesson or user no longer exists")
	}
	var courseTitle string
	if c := find(snap.Courses, func(c edapptest.SnapshotCourse) bool { return c.ID == l.CourseID }); c != nil {
		courseTitle = c.Title
	}
	return launchInfo{LessonID: l.ID, LessonTitle: l.Title, CourseID: l.CourseID, CourseTitle: courseTitle,
		UserID: u.ID, Learner: learnerName(*u), MinimumScore: l.MinimumScore, ExpiresAt: expires.UTC(),
		ExpiresIn: int64(expires.Sub(now).Round(time.Second) / time.Second)}, nil
}

func find[T any](items []T, match func(T) bool) *T {
	if i := slices.IndexFunc(items, match); i >= 0 {
		return &items[i]
	}
	return nil
}

// learnerName is "First Last (username)", or the username alone.
func learnerName(u edapptest.SnapshotUser) string {
	name := strings.TrimSpace(u.FirstName + " " + u.LastName)
	if name == "" {
		return u.Name
	}
	return name + " (" + u.Name + ")"
}

// fakeErr is an error of the fake's helpers as an answer.
func fakeErr(err error) *pageErr {
	switch {
	case errors.Is(err, edapptest.ErrNotFound):
		return &pageErr{http.StatusNotFound, err.Error()}
	case errors.Is(err, edapptest.ErrInvalid):
		return &pageErr{http.StatusBadRequest, err.Error()}
	}
	return &pageErr{http.StatusInternalServerError, "internal error"}
}

// readForm reads the url-encoded body of a launch form post, at most
// maxFormBytes.
func readForm(r *http.Request) (url.Values, *pageErr) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, _ := mime.ParseMediaType(ct); mt != "application/x-www-form-urlencoded" {
			return nil, &pageErr{http.StatusUnsupportedMediaType, http.StatusText(http.StatusUnsupportedMediaType)}
		}
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxFormBytes+1))
	if err != nil { // a form cut short may say another score
		return nil, &pageErr{http.StatusBadRequest, "the form was not read whole"}
	}
	if r.ContentLength > maxFormBytes || len(b) > maxFormBytes {
		return nil, &pageErr{http.StatusRequestEntityTooLarge, http.StatusText(http.StatusRequestEntityTooLarge)}
	}
	form, _ := url.ParseQuery(string(b)) // keeps the pairs that decode
	return form, nil
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

// learnerJSON is GET /learner/{userId}: the learner's published courses
// and lessons, each lesson with a fresh launch link on the host the
// request came in on.
func learnerJSON(fake *edapptest.Server, w http.ResponseWriter, r *http.Request, userID string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		answer(w, nil, &pageErr{http.StatusMethodNotAllowed, "method " + r.Method + " not allowed"})
		return
	}
	u := find(fake.Snapshot().Users, func(u edapptest.SnapshotUser) bool { return u.ID == userID })
	if u == nil {
		answer(w, nil, &pageErr{http.StatusNotFound, "user " + strconv.Quote(userID) + " not found"})
		return
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	courses, err := fake.UserCourses(userID, scheme+"://"+r.Host)
	if err != nil {
		answer(w, nil, fakeErr(err))
		return
	}
	answer(w, learnerHome{UserID: u.ID, Learner: learnerName(*u), Courses: courses}, nil)
}
