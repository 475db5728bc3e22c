package fakeserve

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/edapp-go/edapp/edapptest"
)

// The learner's side as a browser sees it: Handler renders the JSON
// answers of launchJSON and learnerJSON as plain HTML pages, which load
// nothing from elsewhere and run no script.

// maxFormBytes bounds the body of a launch form post.
const maxFormBytes = 64 << 10

// Handler serves fake's API, and its launch links and learner homes as
// HTML pages. A request that accepts application/json gets them as JSON;
// any other path is the fake's.
func Handler(fake *edapptest.Server) http.Handler {
	api := jsonHandler(fake)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		html := !strings.Contains(r.Header.Get("Accept"), "application/json")
		switch {
		case html && len(segs) == 1 && strings.EqualFold(segs[0], "launch-lesson") &&
			(r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodPost):
			serveLaunch(api, w, r)
		case html && len(segs) == 2 && strings.EqualFold(segs[0], "learner") &&
			(r.Method == http.MethodGet || r.Method == http.MethodHead):
			serveLearner(api, w, r)
		default:
			api.ServeHTTP(w, r)
		}
	})
}

// askJSON sends r, with body, to the fake as a request for JSON, and
// decodes a successful answer into out. It returns the status, and the
// fake's message when it is not 200.
func askJSON(api http.Handler, r *http.Request, body []byte, out any) (status int, msg string) {
	inner := r.Clone(r.Context())
	inner.Header.Set("Accept", "application/json")
	inner.Body, inner.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	rec := httptest.NewRecorder()
	api.ServeHTTP(rec, inner)
	if rec.Code != http.StatusOK {
		var e struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &e)
		return rec.Code, e.Message
	}
	if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
		return http.StatusBadGateway, "the fake's answer does not decode: " + err.Error()
	}
	return http.StatusOK, ""
}

// launchView is what the launch page shows: the fake's answer, and the
// page's own state.
type launchView struct {
	LessonID, LessonTitle, CourseTitle, Learner string
	MinimumScore                                int
	ExpiresAt                                   time.Time
	ExpiresInSeconds                            int64
	Completed, CourseCompleted                  bool
	Score                                       *float64
	Events                                      []struct {
		Event    string
		Webhooks int
	}

	Token, ReturnURL string `json:"-"`
	Done             bool   `json:"-"` // a final answer: completed or left
}

// Expires is the link's expiry, in UTC.
func (v launchView) Expires() string { return v.ExpiresAt.UTC().Format("2006-01-02 15:04:05 UTC") }

// ExpiresIn is the time left, as the fake's clock counts it.
func (v launchView) ExpiresIn() string {
	return (time.Duration(v.ExpiresInSeconds) * time.Second).String()
}

// ScoreText is the score of a completion.
func (v launchView) ScoreText() string {
	if v.Score == nil {
		return ""
	}
	return strconv.FormatFloat(*v.Score, 'f', -1, 64)
}

// Deliveries reads "LessonCompletedEvent to 1 webhook", one per event.
func (v launchView) Deliveries() []string {
	var out []string
	for _, e := range v.Events {
		out = append(out, e.Event+" to "+plural(e.Webhooks, "webhook"))
	}
	return out
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// serveLaunch is the launch page. A GET (or HEAD) opens the lesson and
// shows a form, which posts back here to complete or leave it; the answer
// then says what the fake did and, with a returnUrl, offers "Back to the
// app".
func serveLaunch(api http.Handler, w http.ResponseWriter, r *http.Request) {
	var body []byte
	if r.Method == http.MethodPost && r.Body != nil {
		body, _ = io.ReadAll(io.LimitReader(r.Body, maxFormBytes+1)) // the fake refuses more
	}
	form, _ := url.ParseQuery(string(body))
	param := func(k string) string { return lowerParam(form, k, lowerParam(r.URL.Query(), k, "")) }
	var v launchView
	if status, msg := askJSON(api, r, body, &v); status != http.StatusOK {
		pageError(w, status, msg)
		return
	}
	v.Token, v.ReturnURL, v.Done = param("token"), returnLink(param("returnurl")), r.Method == http.MethodPost
	writePage(w, http.StatusOK, "launch", v)
}

// lowerParam is the first value of the parameter named k without regard
// to case, or def.
func lowerParam(vals url.Values, k, def string) string {
	for name, v := range vals {
		if strings.EqualFold(name, k) && len(v) > 0 {
			return v[0]
		}
	}
	return def
}

// learnerView is what the learner home shows.
type learnerView struct {
	UserID  string
	Learner string
	Courses []struct {
		Title     string
		Completed bool
		Lessons   []struct {
			Title             string
			Completed, Opened bool
			LaunchURI         string `json:"launchURI"`
		}
	}
}

// serveLearner is the learner home: the learner's published courses and
// lessons, each lesson with a fresh launch link.
func serveLearner(api http.Handler, w http.ResponseWriter, r *http.Request) {
	var v learnerView
	if status, msg := askJSON(api, r, nil, &v); status != http.StatusOK {
		pageError(w, status, msg)
		return
	}
	writePage(w, http.StatusOK, "learner", v)
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

// errorView is what an error page shows.
type errorView struct {
	Status  int
	Title   string
	Message string
}

// pageError answers the fake's error as an HTML page.
func pageError(w http.ResponseWriter, status int, msg string) {
	title := http.StatusText(status)
	switch status {
	case http.StatusGone:
		title = "This launch link has expired"
	case http.StatusUnauthorized:
		title = "This launch link is not valid"
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	writePage(w, status, "error", errorView{Status: status, Title: title, Message: msg})
}

// writePage renders one of the pages. The pages load nothing from
// elsewhere and run no script; they are not cached, and send no Referer
// beyond the fake (a launch page's address holds its token).
func writePage(w http.ResponseWriter, status int, name string, data any) {
	var b strings.Builder
	if err := pages.ExecuteTemplate(&b, name, data); err != nil {
		http.Error(w, "cannot render page", http.StatusInternalServerError)
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
