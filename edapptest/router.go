package edapptest

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Paging limits of the v2 list operations.
const (
	defaultPageSize = 25
	maxPageSize     = 1000
)

// exchange is one routed API request and the answer its handler builds.
type exchange struct {
	s      *Server
	st     *store
	r      *http.Request
	params []string
	query  map[string][]string // names lower-cased
	body   []byte
	now    time.Time

	status int    // the answer, written once the lock is released
	answer []byte // JSON
}

type route struct {
	method   string
	pattern  []string // lower-case fixed segments; "" is a parameter; "a|b" are alternatives
	template string   // the route's name in the counters: "/v2/usergroups/{id}/users"
	h        func(*exchange)
	write    bool // changes the store: runs under the write lock
}

// groupsPathSegment matches both spellings of the v2 group paths.
const groupsPathSegment = "usergroups|usersgroups"

var routes = buildRoutes()

// tokenIssuingRoutes are the GET routes that change the store: they hand
// out tokens, so they run under the write lock.
var tokenIssuingRoutes = map[string]bool{
	"v1/users/{}/courses":        true,
	"v1/users/external/{}/token": true,
	"v1/users/id/{}/token":       true,
}

func newRoute(method, pattern string, h func(*exchange)) route {
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		if s == "{}" {
			segs[i] = ""
		}
	}
	write := method != http.MethodGet || tokenIssuingRoutes[pattern]
	return route{method, segs, routeTemplate(pattern), h, write}
}

func buildRoutes() []route {
	r, g := newRoute, "v2/"+groupsPathSegment
	return []route{
		// v1
		r("POST", "v1/users", v1SaveUser),
		r("GET", "v1/users", v1ListUsers),
		r("GET", "v1/users/external/{}/token", v1TokenByExternalID),
		r("GET", "v1/users/id/{}/token", v1TokenByID),
		r("DELETE", "v1/users/{}", v1DeleteUser),
		r("GET", "v1/users/{}/courses", v1UserCourses),
		r("POST", "v1/usergroups", v1SaveGroup),
		r("GET", "v1/usergroups", v1ListGroups),
		r("DELETE", "v1/usergroups/{}", v1DeleteGroup),
		r("GET", "v1/reports/user/{}/course/{}", v1CourseReport),
		r("GET", "v1/reports/activities", v1Activities),

		// v2 users
		r("POST", "v2/users", v2CreateUser),
		r("GET", "v2/users", v2ListUsers),
		r("GET", "v2/users/{}", v2GetUser),
		r("PUT", "v2/users/{}", v2UpdateUser),
		r("DELETE", "v2/users/{}", v2DeleteUser),
		r("GET", "v2/users/{}/courses", v2UserCourses),

		// v2 user groups, both spellings
		r("POST", g, v2CreateGroup),
		r("GET", g, v2ListGroups),
		r("GET", g+"/{}/children", v2GroupChildren),
		r("POST", g+"/{}/users", v2AddGroupUsers),
		r("DELETE", g+"/{}/users", v2RemoveGroupUsers),
		r("GET", g+"/{}/users", v2GroupUsers),

		// v2 catalog
		r("GET", "v2/catalog/coursecollections", v2Collections),
		r("GET", "v2/catalog/coursecollections/{}/courses", v2CollectionCourses),
		r("GET", "v2/catalog/courses", v2Courses),
		r("GET", "v2/catalog/courses/{}/lessons", v2CourseLessons),

		// v2 analytics
		r("GET", "v2/analytics/attempts", v2Attempts),
		r("GET", "v2/analytics/courseprogress", v2CourseProgress),
		r("GET", "v2/analytics/coursestatistics", v2CourseStatistics),
		r("GET", "v2/analytics/lessonstatistics", v2LessonStatistics),
		r("GET", "v2/analytics/lesson-progress/events", v2LessonProgressEvents),
		r("GET", "v2/analytics/users/{}/lesson-progress", v2UserLessonProgress),
		r("GET", "v2/analytics/users/{}/lesson-progress/events", v2UserLessonProgressEvents),
		r("GET", "v2/analytics/surveyquestiondefinitions", v2SurveyQuestions),
		r("GET", "v2/analytics/surveyanswers", v2SurveyAnswers),

		// v2 webhooks
		r("POST", "v2/webhooks", v2CreateWebhook),
		r("GET", "v2/webhooks", v2ListWebhooks),
		r("DELETE", "v2/webhooks/{}", v2DeleteWebhook),
	}
}

func match(pattern, segs []string) ([]string, bool) {
	if len(pattern) != len(segs) {
		return nil, false
	}
	var params []string
	for i, p := range pattern {
		if p == "" {
			params = append(params, segs[i])
		} else if !slices.ContainsFunc(strings.Split(p, "|"), func(alt string) bool { return strings.EqualFold(alt, segs[i]) }) {
			return nil, false
		}
	}
	return params, true
}

func splitPath(r *http.Request) ([]string, bool) {
	p := ""
	if r.URL != nil {
		p = strings.TrimSuffix(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	}
	if p == "" {
		return nil, true
	}
	parts := strings.Split(p, "/")
	for i, part := range parts {
		u, err := url.PathUnescape(part)
		if err != nil {
			return nil, false
		}
		parts[i] = u
	}
	return parts, true
}

// routeMatch is the outcome of looking a request up in routes.
type routeMatch struct {
	index   int // into routes; -1 when no route has this method and path
	params  []string
	allowed []string // the methods the path takes, when the method is wrong
}

func findRoute(method string, segs []string) routeMatch {
	m := routeMatch{index: -1}
	for i, rt := range routes {
		params, ok := match(rt.pattern, segs)
		if !ok {
			continue
		}
		if rt.method != method {
			m.allowed = append(m.allowed, rt.method)
			continue
		}
		m.index, m.params = i, params
		return m
	}
	return m
}

// route runs the matched handler under the store lock, or answers 405 or
// 404 when nothing matched.
func (s frontDoor) route(w http.ResponseWriter, r *http.Request, m routeMatch, segs []string, body []byte) {
	if m.index < 0 {
		if len(m.allowed) > 0 {
			sort.Strings(m.allowed)
			w.Header().Set("Allow", strings.Join(m.allowed, ", "))
			writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed")
			return
		}
		writeError(w, http.StatusNotFound, "no route for "+r.Method+" /"+strings.Join(segs, "/"))
		return
	}
	c := &exchange{s: s.server, r: r, params: m.params, body: body, query: lowerQuery(r)}
	s.handle(routes[m.index], c)
	// The answer is encoded under the lock and written after it, so
	// that a slow reader holds up nobody.
	writeRaw(w, c.status, c.answer)
}

// handle runs a handler under the store lock: shared for reads,
// exclusive for writes.
func (s frontDoor) handle(rt route, c *exchange) {
	if rt.write {
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
		c.status, c.answer = encodeJSON(http.StatusInternalServerError, errorBody{"handler answered nothing"})
	}
}

func lowerQuery(r *http.Request) map[string][]string {
	out := make(map[string][]string)
	if r.URL == nil {
		return out
	}
	for k, v := range r.URL.Query() {
		lk := strings.ToLower(k)
		out[lk] = append(out[lk], v...)
	}
	return out
}

// q returns the first value of a query parameter, by lower-case name.
func (c *exchange) q(name string) string {
	if v := c.query[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// json sets the answer; the first one set wins.
func (c *exchange) json(status int, v any) {
	if c.status == 0 {
		c.status, c.answer = encodeJSON(status, v)
	}
}

func (c *exchange) fail(status int, msg string) { c.json(status, errorBody{msg}) }

func (c *exchange) failErr(err error) {
	var ae *apiErr
	if errors.As(err, &ae) {
		c.fail(ae.status, ae.msg)
		return
	}
	c.fail(http.StatusInternalServerError, err.Error())
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	status, b := encodeJSON(status, v)
	writeRaw(w, status, b)
}

func encodeJSON(status int, v any) (int, []byte) {
	b, err := json.Marshal(v)
	if err != nil {
		return http.StatusInternalServerError, []byte(`{"message":"cannot encode response"}` + "\n")
	}
	return status, append(b, '\n')
}

func writeRaw(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

type errorBody struct {
	Message string `json:"message"`
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorBody{msg})
}

// decode reads the body, a JSON object, into v. Field names match without
// regard to case, as the service matches them; an empty body is an empty
// object. On error it answers 400 and reports false.
func (c *exchange) decode(v any) bool {
	b := bytes.TrimSpace(c.body)
	if len(b) == 0 {
		return true
	}
	err := json.Unmarshal(b, v)
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr):
		err = errors.New("field " + typeErr.Field + " must be " + typeErr.Type.String())
	case err == nil && b[0] != '{':
		err = errors.New("expected an object")
	}
	if err != nil {
		c.fail(http.StatusBadRequest, "malformed JSON body: "+err.Error())
	}
	return err == nil
}

func (c *exchange) reply(v any, err error) {
	if err != nil {
		c.failErr(err)
		return
	}
	c.json(http.StatusOK, v)
}

func (c *exchange) paging() (page, size int, ok bool) {
	n := map[string]int{"page": 1, "pageSize": defaultPageSize}
	for _, name := range []string{"page", "pageSize"} {
		v := c.q(strings.ToLower(name))
		if v == "" {
			continue
		}
		got, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			c.fail(http.StatusBadRequest, "invalid "+name+": "+strconv.Quote(truncate(v, 32)))
			return 0, 0, false
		}
		if got > 0 {
			n[name] = got
		}
	}
	return n["page"], min(n["pageSize"], maxPageSize), true
}

// envelope is the paged list shape.
type envelope[T any] struct {
	TotalCount int `json:"totalCount"`
	Items      []T `json:"items"`
}

func pageOf[T any](c *exchange, items []T) { pageMap(c, items, func(t T) T { return t }) }

// pageMap answers one page of items in the envelope, converting only the
// items of that page, so that a page costs its own size, not the list's.
func pageMap[S, T any](c *exchange, items []S, conv func(S) T) {
	page, size, ok := c.paging()
	if !ok {
		return
	}
	var pageItems []S
	if start := (page - 1) * size; page-1 <= len(items)/size && start < len(items) {
		pageItems = items[start:min(start+size, len(items))]
	}
	c.json(http.StatusOK, envelope[T]{TotalCount: len(items), Items: convert(pageItems, conv)})
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// wireTime writes a datetime as the samples do: UTC with milliseconds, or
// null for the zero time. With omitzero it is left out when zero.
type wireTime struct{ t time.Time }

const wireLayout = "2006-01-02T15:04:05.000Z07:00"

func wt(t time.Time) wireTime { return wireTime{t} }

func (w wireTime) IsZero() bool { return w.t.IsZero() }

func (w wireTime) MarshalJSON() ([]byte, error) {
	if w.t.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + formatTime(w.t) + `"`), nil
}

// UnmarshalJSON reads what MarshalJSON writes (and any RFC 3339 string).
func (w *wireTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*w = wireTime{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	*w = wireTime{t}
	return err
}

func formatTime(t time.Time) string { return t.UTC().Format(wireLayout) }

// queryTimeLayouts are the datetime forms a filter takes: RFC 3339, the same
// with a space for the T (Python's str(datetime)), with a +hhmm or +hh
// offset, or without a zone (UTC); and a plain date.
var queryTimeLayouts = func() []string {
	var out []string
	for _, sep := range []string{"T", " "} {
		base := "2006-01-02" + sep + "15:04:05.999999999"
		out = append(out, base+"Z07:00", base+"Z0700", base+"Z07", base)
	}
	return append(out, "2006-01-02")
}()

func parseQueryTime(v string) (time.Time, bool) {
	v = strings.TrimSpace(v)
	for _, cand := range []string{v, restorePlus(v)} {
		for _, layout := range queryTimeLayouts {
			if t, err := time.Parse(layout, cand); err == nil {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// restorePlus turns "2026-11-22T01:35:07 0000" back into "...+0000": an
// offset's "+" decodes to a space when a client does not escape it.
func restorePlus(v string) string {
	i := strings.LastIndexByte(v, ' ')
	if i <= len("2006-01-02") || i+1 >= len(v) || v[i+1] < '0' || v[i+1] > '9' {
		return v
	}
	return v[:i] + "+" + v[i+1:]
}

// timeParam reads an optional datetime query parameter; on a bad value it
// answers 400 and reports false.
func (c *exchange) timeParam(name string) (time.Time, bool) {
	v := c.q(strings.ToLower(name))
	if v == "" {
		return time.Time{}, true
	}
	t, ok := parseQueryTime(v)
	if !ok {
		c.fail(http.StatusBadRequest, "invalid "+name+": "+strconv.Quote(truncate(v, 64))+" is not a datetime (want RFC 3339, such as 2026-11-22T01:35:07Z)")
	}
	return t, ok
}

// convert converts every item; an empty list is an empty array, not null.
func convert[S, T any](items []S, conv func(S) T) []T {
	out := make([]T, 0, len(items))
	for _, it := range items {
		out = append(out, conv(it))
	}
	return out
}

func with[S, T any](st *store, conv func(*store, S) T) func(S) T {
	return func(s S) T { return conv(st, s) }
}
