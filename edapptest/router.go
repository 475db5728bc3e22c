package edapptest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/fakeserver"
)

// Paging limits of the v2 list operations.
const (
	defaultPageSize = 25
	maxPageSize     = 1000
)

// exchange is one routed API request and the answer its handler builds.
type exchange struct {
	s     *Server
	st    *store
	r     *http.Request
	query url.Values
	body  []byte
	now   time.Time

	status int    // the answer, written once the lock is released
	answer []byte // JSON
}

type route struct {
	pattern string // an http.ServeMux pattern
	h       func(*exchange)
}

var routeTable = []route{
	{"POST /v1/users", v1SaveUser},
	{"GET /v1/users", v1ListUsers},
	{"GET /v1/users/external/{id}/token", v1TokenByExternalID},
	{"GET /v1/users/id/{id}/token", v1TokenByID},
	{"DELETE /v1/users/{id}", v1DeleteUser},
	{"GET /v1/users/{id}/courses", v1UserCourses},
	{"POST /v1/usergroups", v1SaveGroup},
	{"GET /v1/usergroups", v1ListGroups},
	{"DELETE /v1/usergroups/{id}", v1DeleteGroup},
	{"GET /v1/reports/user/{id}/course/{course}", v1CourseReport},
	{"GET /v1/reports/activities", v1Activities},

	{"POST /v2/users", v2CreateUser},
	{"GET /v2/users", v2ListUsers},
	{"GET /v2/users/{id}", v2GetUser},
	{"PUT /v2/users/{id}", v2UpdateUser},
	{"DELETE /v2/users/{id}", v2DeleteUser},
	{"GET /v2/users/{id}/courses", v2UserCourses},

	{"POST /v2/usergroups", v2CreateGroup},
	{"GET /v2/usergroups", v2ListGroups},
	{"GET /v2/usergroups/{id}/children", v2GroupChildren},
	{"POST /v2/usergroups/{id}/users", v2AddGroupUsers},
	{"DELETE /v2/usergroups/{id}/users", v2RemoveGroupUsers},
	{"GET /v2/usergroups/{id}/users", v2GroupUsers},

	{"GET /v2/catalog/coursecollections", v2Collections},
	{"GET /v2/catalog/coursecollections/{id}/courses", v2CollectionCourses},
	{"GET /v2/catalog/courses", v2Courses},
	{"GET /v2/catalog/courses/{id}/lessons", v2CourseLessons},

	{"GET /v2/analytics/attempts", v2Attempts},
	{"GET /v2/analytics/courseprogress", v2CourseProgress},
	{"GET /v2/analytics/coursestatistics", v2CourseStatistics},
	{"GET /v2/analytics/lessonstatistics", v2LessonStatistics},
	{"GET /v2/analytics/lesson-progress/events", v2LessonProgressEvents},
	{"GET /v2/analytics/users/{id}/lesson-progress", v2UserLessonProgress},
	{"GET /v2/analytics/users/{id}/lesson-progress/events", v2UserLessonProgressEvents},
	{"GET /v2/analytics/surveyquestiondefinitions", v2SurveyQuestions},
	{"GET /v2/analytics/surveyanswers", v2SurveyAnswers},

	{"POST /v2/webhooks", v2CreateWebhook},
	{"GET /v2/webhooks", v2ListWebhooks},
	{"DELETE /v2/webhooks/{id}", v2DeleteWebhook},
}

// newMux serves routeTable, the group routes under both spellings.
func (s frontDoor) newMux() *http.ServeMux {
	mux := http.NewServeMux()
	for _, rt := range routeTable {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			c := &exchange{s: s.server, r: r, query: url.Values{}, body: body}
			for k, v := range r.URL.Query() {
				c.query[strings.ToLower(k)] = append(c.query[strings.ToLower(k)], v...)
			}
			s.handle(rt, c)
			// The answer is encoded under the lock and written after it, so
			// that a slow reader holds up nobody.
			fakeserver.WriteRaw(w, c.status, c.answer)
		})
		mux.Handle(rt.pattern, h)
		if other := strings.Replace(rt.pattern, "/usergroups", "/usersgroups", 1); other != rt.pattern {
			mux.Handle(other, h)
		}
	}
	return mux
}

// Route finds the route of an API request; see fakeserver.Routes. The
// path's fixed segments match without regard to case, as the real
// service's do, and its wildcards take the path's own.
func (s frontDoor) Route(r *http.Request) (string, http.Handler) {
	escaped := r.URL.EscapedPath()
	probe := &url.URL{Path: strings.ToLower(r.URL.Path), RawPath: strings.ToLower(escaped)}
	h, pattern := s.mux.Handler(&http.Request{Method: r.Method, URL: probe})
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		return "", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			writeError(w, http.StatusNotFound, "no route for "+r.Method+" "+r.URL.Path)
		})
	}
	return method + " " + routeTemplate(path), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		segs := strings.Split(escaped, "/")
		for i, seg := range strings.Split(path, "/") {
			if v, err := url.PathUnescape(segs[i]); strings.HasPrefix(seg, "{") && err == nil {
				r.SetPathValue(strings.Trim(seg, "{}"), v)
			}
		}
		h.ServeHTTP(w, r)
	})
}

// handle runs a handler under the store lock: shared for reads,
// exclusive for writes and for the GET routes under /v1/users/, which
// hand out tokens.
func (s frontDoor) handle(rt route, c *exchange) {
	if !strings.HasPrefix(rt.pattern, "GET ") || strings.HasPrefix(rt.pattern, "GET /v1/users/") {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.st.version++
	} else {
		s.mu.RLock()
		defer s.mu.RUnlock()
	}
	c.st = s.st
	c.now = s.Now()
	rt.h(c)
	if c.status == 0 {
		c.status, c.answer = fakeserver.EncodeJSON(http.StatusInternalServerError, errorBody{"handler answered nothing"})
	}
}

// q returns the first value of a query parameter, named without regard
// to case.
func (c *exchange) q(name string) string { return c.query.Get(strings.ToLower(name)) }

// json sets the answer; the first one set wins.
func (c *exchange) json(status int, v any) {
	if c.status == 0 {
		c.status, c.answer = fakeserver.EncodeJSON(status, v)
	}
}

func (c *exchange) fail(status int, msg string) { c.json(status, errorBody{msg}) }

type errorBody struct {
	Message string `json:"message"`
}

func writeError(w http.ResponseWriter, status int, msg string) {
	fakeserver.WriteJSON(w, status, errorBody{msg})
}

// decode reads the body, a JSON object, into v. Field names match without
// regard to case, as the service matches them; an empty body is an empty
// object. On error it answers 400 and reports false.
func (c *exchange) decode(v any) bool {
	if len(bytes.TrimSpace(c.body)) == 0 {
		return true
	}
	err := json.Unmarshal(c.body, v)
	if err != nil {
		c.fail(http.StatusBadRequest, "malformed JSON body: "+err.Error())
	}
	return err == nil
}

// withBody is a route that decodes the body into an In and answers what
// op returns, or its error.
func withBody[In any](op func(c *exchange, in In) (any, error)) func(*exchange) {
	return func(c *exchange) {
		var in In
		if c.decode(&in) {
			c.reply(op(c, in))
		}
	}
}

// reply answers v, or err with the status it maps to.
func (c *exchange) reply(v any, err error) {
	var ae *apiErr
	switch {
	case errors.As(err, &ae):
		c.fail(ae.status, ae.msg)
	case err != nil:
		c.fail(http.StatusInternalServerError, err.Error())
	default:
		c.json(http.StatusOK, v)
	}
}

func pageOf[T any](c *exchange, items []T) { pageMap(c, items, fakeserver.Same) }

// pageMap answers one page of items, as page and pageSize ask; a value
// missing, below 1 or not a number takes the default.
func pageMap[S, T any](c *exchange, items []S, conv func(S) T) {
	page, _ := strconv.Atoi(c.q("page"))
	size, _ := strconv.Atoi(c.q("pageSize"))
	if size < 1 {
		size = defaultPageSize
	}
	c.json(http.StatusOK, fakeserver.Page(items, max(page, 1), min(size, maxPageSize), conv))
}

func wt(t time.Time) edapp.Time { return edapp.Time{Time: t} }

// timeParam reads an optional datetime query parameter; on a bad value it
// answers 400 and reports false.
func (c *exchange) timeParam(name string) (time.Time, bool) {
	v := c.q(name)
	if v == "" {
		return time.Time{}, true
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(v))
	if err != nil {
		c.fail(http.StatusBadRequest, "invalid "+name+": "+quote(v)+" is not an RFC 3339 datetime, such as 2026-11-22T01:35:07Z")
	}
	return t, err == nil
}

// routeTemplate writes a path as the counters name routes: lower case,
// a leading slash, "{id}" for every parameter and the usergroups spelling.
func routeTemplate(path string) string {
	segs := strings.Split(strings.Trim(strings.ToLower(strings.TrimSpace(path)), "/"), "/")
	for i, seg := range segs {
		switch {
		case seg == "" || strings.HasPrefix(seg, "{"):
			segs[i] = "{id}"
		case seg == "usersgroups":
			segs[i] = "usergroups"
		}
	}
	return "/" + strings.Join(segs, "/")
}
