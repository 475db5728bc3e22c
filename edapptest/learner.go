package edapptest

import (
	"html/template"
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

// The learner's side of the fake: the launch page, where a learner opens,
// completes or leaves a lesson, and the learner home, which lists a
// learner's courses with fresh launch links. Both are plain HTML pages for
// a browser and need no bearer token.

// maxFormBytes bounds the body of a launch-page form post.
const maxFormBytes = 64 << 10

// The launch page's form actions.
const (
	actionComplete = "complete"
	actionLeave    = "leave"
)

// launchPage is the JSON answer of a successful launch.
type launchPage struct {
	LessonID    string `json:"lessonId"`
	LessonTitle string `json:"lessonTitle"`
	CourseID    string `json:"courseId"`
	CourseTitle string `json:"courseTitle"`
	UserID      string `json:"userId"`
	AttemptID   string `json:"attemptId"`
}

// launchResult is the JSON answer of a launch-page form post.
type launchResult struct {
	LessonID        string   `json:"lessonId"`
	LessonTitle     string   `json:"lessonTitle"`
	CourseID        string   `json:"courseId"`
	CourseTitle     string   `json:"courseTitle"`
	UserID          string   `json:"userId"`
	Completed       bool     `json:"completed"`
	Score           *float64 `json:"score,omitempty"`
	CourseCompleted bool     `json:"courseCompleted"`
	// Deliveries counts the webhook deliveries the completion made.
	Deliveries int `json:"webhookDeliveries"`
}

// launchView is what the launch page shows.
type launchView struct {
	LessonID, LessonTitle, CourseTitle string
	Learner                            string
	MinimumScore                       int
	Expires                            string // UTC
	ExpiresIn                          string
	Token, ReturnURL                   string
	// After a form post:
	Done       bool // a final answer: completed or left
	Result     launchResult
	ScoreText  string
	Deliveries []string // "LessonCompletedEvent to 1 webhook"
}

// serveLaunch is /launch-lesson. It needs no bearer token: the launch token
// signs the learner in. GET (and HEAD) with ?token=&lesson= records a
// lesson open (a new attempt) and answers the launch page, or JSON when
// the request accepts application/json. The page's form posts the token,
// lesson and score back to the same path in the body: action=complete
// completes the lesson as Server.CompleteLesson does, action=leave leaves
// it opened. A token may be used until it expires. form is the decoded
// body of a POST (read before the request was logged, see readForm).
func (s *Server) serveLaunch(w http.ResponseWriter, r *http.Request, form map[string][]string, formStatus int) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, HEAD, POST")
		writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed")
		return
	}
	q := lowerQuery(r)
	// launchParam reads the form first, then the query.
	launchParam := func(k string) string {
		if v := form[k]; len(v) > 0 {
			return v[0]
		}
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	if r.Method != http.MethodPost {
		s.openLaunch(w, r, launchParam)
		return
	}
	switch {
	case formStatus != 0:
		pageError(w, r, formStatus, http.StatusText(formStatus))
	case !sameOrigin(r):
		pageError(w, r, http.StatusForbidden, "a launch page form must be posted from the launch page")
	default:
		s.postLaunch(w, r, launchParam)
	}
}

// openLaunch answers a GET of the launch page: it records the open.
func (s *Server) openLaunch(w http.ResponseWriter, r *http.Request, launchParam func(string) string) {
	tok := launchParam("token")
	status, msg, page, view := s.launch(tok, launchParam("lesson"))
	if status != http.StatusOK {
		pageError(w, r, status, msg)
		return
	}
	if wantsJSON(r) {
		writeJSON(w, http.StatusOK, page)
		return
	}
	view.Token, view.ReturnURL = tok, returnLink(launchParam("returnurl"))
	writePage(w, http.StatusOK, "launch", view)
}

// postLaunch answers the launch page's form: complete or leave.
func (s *Server) postLaunch(w http.ResponseWriter, r *http.Request, launchParam func(string) string) {
	tok, lessonID := launchParam("token"), launchParam("lesson")
	var (
		status int
		msg    string
		view   launchView
	)
	switch action := strings.ToLower(launchParam("action")); action {
	case actionComplete, "":
		status, msg, view = s.completeLaunch(tok, lessonID, launchParam("score"))
	case actionLeave:
		status, msg, view = s.leaveLaunch(tok, lessonID)
	default:
		status, msg = http.StatusBadRequest, "unknown action "+strconv.Quote(action)+" (want complete or leave)"
	}
	if status != http.StatusOK {
		pageError(w, r, status, msg)
		return
	}
	if wantsJSON(r) {
		writeJSON(w, http.StatusOK, view.Result)
		return
	}
	view.ReturnURL, view.Done = returnLink(launchParam("returnurl")), true
	writePage(w, http.StatusOK, "launch", view)
}

// launch checks a launch token and records the open.
func (s *Server) launch(tok, lessonID string) (status int, msg string, page launchPage, view launchView) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.version++
	now := s.now()
	u, l, t, err := s.st.checkLaunch(tok, lessonID, now)
	if err != nil {
		return err.status, err.msg, page, view
	}
	a := s.st.open(u, l, now)
	view = s.st.launchView(u, l, t, now)
	page = launchPage{LessonID: l.id, LessonTitle: l.title, CourseID: l.courseID,
		CourseTitle: view.CourseTitle, UserID: u.id, AttemptID: a.id}
	return http.StatusOK, "", page, view
}

// completeLaunch completes the lesson of a valid launch token with the
// score given by the form, through the same code as CompleteLesson. A
// request without a valid, unexpired token changes nothing.
func (s *Server) completeLaunch(tok, lessonID, scoreText string) (status int, msg string, view launchView) {
	score, serr := strconv.ParseFloat(strings.TrimSpace(scoreText), 64)
	if serr == nil {
		serr = checkScore(score)
	}
	err := s.emit(func(st *store, now time.Time) ([]outEvent, error) {
		u, l, t, err := st.checkLaunch(tok, lessonID, now)
		if err != nil {
			return nil, err
		}
		if serr != nil {
			return nil, &apiErr{http.StatusBadRequest, "score must be a number from 0 to 100"}
		}
		events := st.complete(u, l, score, now)
		view = st.launchView(u, l, t, now)
		view.Result.Completed, view.Result.Score = true, &score
		view.ScoreText = strconv.FormatFloat(score, 'f', -1, 64)
		for _, e := range events {
			n := 0
			for _, w := range st.webhooks.all() {
				if w.eventName == e.name {
					n++
				}
			}
			view.Result.Deliveries += n
			view.Result.CourseCompleted = view.Result.CourseCompleted || e.name == edapp.EventCourseCompleted
			view.Deliveries = append(view.Deliveries, string(e.name)+" to "+plural(n, "webhook"))
		}
		return events, nil
	})
	if err != nil {
		return errStatus(err), errMessage(err), view
	}
	return http.StatusOK, "", view
}

// leaveLaunch checks the token and changes nothing: the lesson stays
// opened but not completed.
func (s *Server) leaveLaunch(tok, lessonID string) (status int, msg string, view launchView) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	now := s.now()
	u, l, t, err := s.st.checkLaunch(tok, lessonID, now)
	if err != nil {
		return err.status, err.msg, view
	}
	return http.StatusOK, "", s.st.launchView(u, l, t, now)
}

// checkLaunch finds the user and lesson of a launch token that is valid
// for lessonID at now.
func (st *store) checkLaunch(tok, lessonID string, now time.Time) (*user, *lesson, *launchToken, *apiErr) {
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
	u, l := st.users.get(t.userID), st.lessons.get(t.lessonID)
	if u == nil || l == nil {
		return fail(http.StatusNotFound, "lesson or user no longer exists")
	}
	return u, l, t, nil
}

func (st *store) launchView(u *user, l *lesson, t *launchToken, now time.Time) launchView {
	cr := st.courses.get(l.courseID)
	v := launchView{
		LessonID: l.id, LessonTitle: l.title,
		CourseTitle:  field(cr, func(c *course) string { return c.title }),
		Learner:      learnerName(u),
		MinimumScore: l.minimumScore,
		Expires:      t.expires.UTC().Format("2006-01-02 15:04:05 UTC"),
		ExpiresIn:    t.expires.Sub(now).Round(time.Second).String(),
	}
	v.Result = launchResult{LessonID: l.id, LessonTitle: l.title, CourseID: l.courseID,
		CourseTitle: v.CourseTitle, UserID: u.id}
	return v
}

// learnerName is "First Last (username)", or the username alone.
func learnerName(u *user) string {
	name := strings.TrimSpace(u.firstName + " " + u.lastName)
	if name == "" {
		return u.username
	}
	return name + " (" + u.username + ")"
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func errStatus(err error) int {
	if ae, ok := err.(*apiErr); ok {
		return ae.status
	}
	return http.StatusInternalServerError
}

func errMessage(err error) string {
	if ae, ok := err.(*apiErr); ok {
		return ae.msg
	}
	return "internal error"
}

// returnLink is raw when it is an absolute http or https URL, and ""
// otherwise: the page never links anywhere else.
func returnLink(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https")) {
		return ""
	}
	return u.String()
}

// readForm reads the url-encoded body of a launch-page post, at most
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

func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

// errorView is what an error page shows.
type errorView struct {
	Status  int
	Title   string
	Message string
}

// pageError answers an error as an HTML page, or as the fake's JSON error
// when the request accepts application/json.
func pageError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if wantsJSON(r) {
		writeError(w, status, msg)
		return
	}
	title := http.StatusText(status)
	switch status {
	case http.StatusGone:
		title = "This launch link has expired"
	case http.StatusUnauthorized:
		title = "This launch link is not valid"
	}
	writePage(w, status, "error", errorView{Status: status, Title: title, Message: msg})
}

// writePage renders one of the pages. The pages load nothing from
// elsewhere and run no script; they are not cached, and send no Referer
// beyond the fake (a launch page's address holds its token).
func writePage(w http.ResponseWriter, status int, name string, data any) {
	var b strings.Builder
	if err := pages.ExecuteTemplate(&b, name, data); err != nil {
		writeError(w, http.StatusInternalServerError, "cannot render page")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, b.String())
}

// learnerView is what the learner home shows.
type learnerView struct {
	UserID  string
	Learner string
	Courses []v1Course
}

// serveLearner is GET /learner/{userId}: the learner's published courses
// and lessons, as GET /v1/users/{id}/courses answers them, each lesson with
// a fresh launch link. It needs no bearer token and shows nothing the API
// token guards beyond what a learner sees.
func (s *Server) serveLearner(w http.ResponseWriter, r *http.Request, userID string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed")
		return
	}
	var view learnerView
	found := func() bool {
		s.mu.Lock() // minting launch tokens writes
		defer s.mu.Unlock()
		s.st.version++
		u := s.st.users.get(userID)
		if u == nil {
			return false
		}
		c := &exchange{s: s, st: s.st, r: r, now: s.now()}
		view = learnerView{UserID: u.id, Learner: learnerName(u), Courses: c.userCourses(u)}
		return true
	}()
	if !found {
		pageError(w, r, http.StatusNotFound, "user "+strconv.Quote(userID)+" not found")
		return
	}
	writePage(w, http.StatusOK, "learner", view)
}

// checkScore is the rule for a completion's score.
func checkScore(score float64) error {
	if math.IsNaN(score) || score < 0 || score > 100 {
		return invalid("score %v is outside 0-100", score)
	}
	return nil
}

var pages = template.Must(template.New("pages").Parse(pageTemplates))

const pageTemplates = `
{{define "head"}}<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.}} · edapptest</title>
<style>
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
main{max-width:40rem;margin:2rem auto;padding:1.5rem 2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.6rem;margin:.2rem 0 1rem}
.course{color:#5a6275;text-transform:uppercase;letter-spacing:.05em;font-size:.8rem;margin:0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0 0 1.5rem}
dt{color:#5a6275}dd{margin:0}
form{border-top:1px solid #e3e5ea;padding-top:1rem}
label{display:block;margin-bottom:.8rem}
input[type=number]{font:inherit;width:5rem;padding:.3rem;margin-left:.5rem}
button,.button{font:inherit;padding:.5rem 1rem;border-radius:6px;border:1px solid #3a5bd9;background:#3a5bd9;color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary{background:#fff;color:#3a5bd9}
.done{background:#e7f6ec;border:1px solid #9bd3ad;padding:.8rem 1rem;border-radius:6px}
.left{background:#fff7e0;border:1px solid #e6cc7a;padding:.8rem 1rem;border-radius:6px}
.error{background:#fdecec;border:1px solid #e6a1a1;padding:.8rem 1rem;border-radius:6px}
table{border-collapse:collapse;width:100%;margin-bottom:1.5rem}
td,th{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #e3e5ea}
footer{color:#8a91a3;font-size:.8rem;margin-top:1.5rem}
</style>
</head>
<body>
<main>
{{end}}

{{define "foot"}}<footer>edapptest: a fake of the EdApp service for development.</footer>
</main>
</body>
</html>
{{end}}

{{define "launch"}}{{template "head" .LessonTitle}}<p class="course">{{.CourseTitle}}</p>
<h1>{{.LessonTitle}}</h1>
<dl>
<dt>Learner</dt><dd id="learner">{{.Learner}}</dd>
<dt>Lesson</dt><dd>{{.LessonID}}{{if .MinimumScore}}, passing score {{.MinimumScore}}{{end}}</dd>
<dt>Link expires</dt><dd id="expires">{{.Expires}} (in {{.ExpiresIn}})</dd>
</dl>
{{if .Done}}{{if .Result.Completed}}<div class="done" id="result">
<p><strong>Lesson completed</strong> with a score of {{.ScoreText}}.{{if .Result.CourseCompleted}} The course is completed too.{{end}}</p>
<p>Progress and the attempt are recorded.{{range .Deliveries}} Sent {{.}}.{{end}}</p>
</div>{{else}}<div class="left" id="result">
<p><strong>Lesson left</strong> opened but not completed.</p>
</div>{{end}}
{{if .ReturnURL}}<p><a class="button" id="return" href="{{.ReturnURL}}">Back to the app</a></p>{{end}}
{{else}}<form method="post" action="launch-lesson">
<input type="hidden" name="token" value="{{.Token}}">
<input type="hidden" name="lesson" value="{{.LessonID}}">
{{if .ReturnURL}}<input type="hidden" name="returnUrl" value="{{.ReturnURL}}">{{end}}
<label>Score (0-100)<input type="number" name="score" min="0" max="100" step="any" value="100" required></label>
<button type="submit" name="action" value="complete" id="complete">Complete the lesson</button>
<button type="submit" name="action" value="leave" id="leave" class="secondary" formnovalidate>Leave without completing</button>
</form>
{{end}}{{template "foot"}}{{end}}

{{define "error"}}{{template "head" .Title}}<h1>{{.Title}}</h1>
<div class="error" id="error"><p>{{.Message}}</p><p>Status {{.Status}}.</p></div>
{{template "foot"}}{{end}}

{{define "learner"}}{{template "head" .Learner}}<p class="course">Learner home</p>
<h1>{{.Learner}}</h1>
{{range .Courses}}<h2>{{.Title}}{{if .Completed}} ✓{{end}}</h2>
<table>
<tr><th>Lesson</th><th>Status</th><th></th></tr>
{{range .Lessons}}<tr><td>{{.Title}}</td><td>{{if .Completed}}completed{{else if .Opened}}opened{{else}}not started{{end}}</td><td><a href="{{.LaunchURI}}">Launch</a></td></tr>
{{end}}</table>
{{else}}<p>No published course reaches {{.UserID}}.</p>
{{end}}<p>Launch links are fresh on every visit and valid for 20 minutes.</p>
{{template "foot"}}{{end}}
`
