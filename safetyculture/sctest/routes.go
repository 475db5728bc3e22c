package sctest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// handler answers one route under the store's lock: the value to encode
// as JSON, or an *apiError.
type handler func(c *call) (any, error)

// call is one request as a handler sees it.
type call struct {
	*http.Request
	st   *store
	now  time.Time
	cfg  config
	body []byte
}

// route is one route the fake answers; catalogue says the service's
// rate-limit table lists it, for the lower limit.
type route struct {
	pattern   string
	handle    handler
	catalogue bool
}

var routeTable = []route{
	{"GET /accounts/user/v1/user:WhoAmI", whoAmI, false},
	{"GET /training/courses/v1", listCourses, true},
	{"GET /training/courses/v1/{courseId}/lessons", courseLessons, true},
	{"GET /training/lessons/v1/{id}", getLesson, false},
	{"PUT /training/courses/v1/{courseId}/assignments", putAssignments, true},
	{"POST /training/courseprogress/v1/reset", resetProgress, false},
	{"GET /training/collections/v1", listCollections, true},
	{"GET /training/collections/v1/{courseCollectionId}/courses", collectionCourses, true},
	{"GET /training/paths/v1", listPaths, true},
	{"GET /training/paths/v1/{pathId}", getPath, true},
	{"GET /training/rapid-refresh/v1", listRapidRefresh, true},
	{"GET /training/rapid-refresh/v1/{id}", getRapidRefresh, true},
	{"GET /training/individualleaderboards/v1", listLeaderboards, true},
	{"GET /training/individualleaderboards/v1/rankings", rankings, true},
	{"GET /training/analytics/v1/courses/statistics", courseStatistics, false},
	{"GET /training/analytics/v1/lessons/statistics", lessonStatistics, false},
	{"GET /training/analytics/v1/lessons/attempts", analyticsRows(reportAttempts, "startDateTime", "endDateTime"), false},
	{"GET /training/analytics/v1/lessons/progress/events", analyticsRows(reportEvents, "minEventDateTime", "maxEventDateTime"), false},
	{"GET /training/analytics/v1/users/{userId}/lessons/progress", userLessonProgress, false},
	{"GET /training/analytics/v1/users/{userId}/lessons/progress/events", analyticsRows(reportEvents, "minEventDateTime", "maxEventDateTime"), false},
	{"GET /training/analytics/v1/slides/statistics", analyticsRows(ReportSlideStatistics, "", ""), false},
	{"GET /training/analytics/v1/users/{userId}/slides/statistics", analyticsRows(ReportUserSlideStatistics, "", ""), false},
	{"GET /training/analytics/v1/surveys/questionDefinitions", analyticsRows(reportQuestions, "", ""), false},
	{"GET /training/analytics/v1/surveys/answers", analyticsRows(reportAnswers, "startDateTime", "endDateTime"), false},
	{"GET /training/analytics/v1/rapidRefresh/answers", analyticsRows(ReportRapidRefreshAnswers, "", ""), false},
	{"GET /training/v1/feed/training-course-progress", feedCourseProgress, false},
	{"GET /feed/users", feedUsers, false},
	{"GET /feed/groups", feedGroups, false},
	{"GET /feed/group_users", feedGroupUsers, false},
	{"GET /feed/sites", feedSites, false},
	{"GET /feed/site_members", feedSiteMembers, false},
	{"GET /webhooks/v1/webhooks", listWebhooks, false},
	{"POST /webhooks/v1/webhooks", createWebhook, false},
	{"GET /webhooks/v1/webhooks/{webhookId}", getWebhook, false},
	{"PUT /webhooks/v1/webhooks/{webhookId}", updateWebhook, false},
	{"DELETE /webhooks/v1/webhooks/{webhookId}", deleteWebhook, false},
	{"GET /webhooks/v1/token", webhookToken, false},
	{"POST /webhooks/v1/token", webhookToken, false},
}

// answer runs a route's handler after its rate limit, under the read lock
// for a GET and the write lock for any other method, whose body it reads
// first, and writes what the handler returns.
func (s *Server) answer(rt route) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := &call{Request: r, cfg: s.cfg}
		var err error
		if !s.admit(w, rt) {
			return
		} else if r.Method != http.MethodGet {
			if c.body, err = io.ReadAll(r.Body); err != nil {
				writeError(w, &apiError{http.StatusRequestEntityTooLarge, "request body too large"})
				return
			}
			s.mu.Lock()
			defer s.mu.Unlock()
		} else {
			s.mu.RLock()
			defer s.mu.RUnlock()
		}
		c.st, c.now = s.st, s.now()
		out, err := rt.handle(c)
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, out)
	}
}

// apiError is an error answer: its status, and the gRPC code the
// service's gateway pairs with it.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &apiError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

func notFound(what, id string) error {
	return &apiError{http.StatusNotFound, what + " " + id + " not found"}
}

func writeError(w http.ResponseWriter, err error) {
	e, ok := err.(*apiError)
	if !ok {
		e = &apiError{http.StatusInternalServerError, err.Error()}
	}
	code := 13 // internal
	switch e.status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		code = 3 // invalid argument
	case http.StatusNotFound:
		code = 5
	case http.StatusTooManyRequests:
		code = 8 // resource exhausted
	case http.StatusUnauthorized:
		code = 16
	}
	writeJSON(w, e.status, map[string]any{"code": code, "message": e.msg, "details": []any{}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// decode reads the request body into v.
func (c *call) decode(v any) error {
	if err := json.Unmarshal(c.body, v); err != nil {
		return badRequest("malformed JSON body")
	}
	return nil
}

// find looks a record up by the path parameter param.
func find[T any](c *call, get func(id string) *T, param, what string) (*T, error) {
	id := c.PathValue(param)
	if v := get(id); v != nil {
		return v, nil
	}
	return nil, notFound(what, id)
}

// page answers one page of items as {totalCount, items}: page is 1-based
// (default 1), pageSize from 1 to 1000 (default 25).
func page[T any](c *call, items []T) (any, error) {
	q := c.URL.Query()
	n, ok1 := intParam(q.Get("page"), 1, 1<<30)
	size, ok2 := intParam(q.Get("pageSize"), 25, 1000)
	if !ok1 || !ok2 {
		return nil, badRequest("page must be at least 1 and pageSize from 1 to 1000")
	}
	start := min((n-1)*size, len(items))
	end := min(start+size, len(items))
	return wireList[T]{TotalCount: len(items), Items: append([]T{}, items[start:end]...)}, nil
}

// intParam reads a whole number from 1 to max; "" gives def.
func intParam(raw string, def, max int) (int, bool) {
	if raw == "" {
		return def, true
	}
	n, err := strconv.Atoi(raw)
	return n, err == nil && n >= 1 && n <= max
}

// boolParam reads a true/false parameter; absent is false.
func boolParam(c *call, name string) (bool, error) {
	raw := c.URL.Query().Get(name)
	v, err := strconv.ParseBool(raw)
	if raw != "" && err != nil {
		return false, badRequest("%s must be true or false", name)
	}
	return v, nil
}

// timeParam reads an RFC 3339 time; "" gives the zero time.
func timeParam(c *call, name string) (time.Time, error) {
	raw := c.URL.Query().Get(name)
	t, err := time.Parse(time.RFC3339Nano, raw)
	if name == "" || raw == "" {
		return time.Time{}, nil
	} else if err != nil {
		return t, badRequest("%s must be an RFC 3339 time", name)
	}
	return t, nil
}

// listParam reads a filter given repeated or comma-joined (courseIds=a,b).
func listParam(c *call, name string) []string {
	var out []string
	for _, v := range c.URL.Query()[name] {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func whoAmI(c *call) (any, error) {
	out := wireWhoAmI{OrganisationID: c.st.orgID}
	if u := c.st.users.Get(c.st.ownerID); u != nil {
		out.UserID, out.Firstname, out.Lastname = u.id, u.firstName, u.lastName
	}
	return out, nil
}
