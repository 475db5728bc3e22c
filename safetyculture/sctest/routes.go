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

type route struct {
	pattern string
	handle  handler
}

// routeTable lists every route the fake answers.
var routeTable = []route{
	{"GET /accounts/user/v1/user:WhoAmI", whoAmI},
	{"GET /training/courses/v1", listCourses},
	{"GET /training/courses/v1/{courseId}/lessons", courseLessons},
	{"GET /training/lessons/v1/{id}", getLesson},
	{"PUT /training/courses/v1/{courseId}/assignments", putAssignments},
	{"POST /training/courseprogress/v1/reset", resetProgress},
	{"GET /training/collections/v1", listCollections},
	{"GET /training/collections/v1/{courseCollectionId}/courses", collectionCourses},
	{"GET /training/paths/v1", listPaths},
	{"GET /training/paths/v1/{pathId}", getPath},
	{"GET /training/rapid-refresh/v1", listRapidRefresh},
	{"GET /training/rapid-refresh/v1/{id}", getRapidRefresh},
	{"GET /training/individualleaderboards/v1", listLeaderboards},
	{"GET /training/individualleaderboards/v1/rankings", rankings},
	{"GET /training/analytics/v1/courses/statistics", courseStatistics},
	{"GET /training/analytics/v1/lessons/statistics", lessonStatistics},
	{"GET /training/analytics/v1/lessons/attempts", analyticsRows(reportAttempts, "startDateTime", "endDateTime")},
	{"GET /training/analytics/v1/lessons/progress/events", analyticsRows(reportEvents, "minEventDateTime", "maxEventDateTime")},
	{"GET /training/analytics/v1/users/{userId}/lessons/progress", userLessonProgress},
	{"GET /training/analytics/v1/users/{userId}/lessons/progress/events", analyticsRows(reportEvents, "minEventDateTime", "maxEventDateTime")},
	{"GET /training/analytics/v1/slides/statistics", analyticsRows(ReportSlideStatistics, "", "")},
	{"GET /training/analytics/v1/users/{userId}/slides/statistics", analyticsRows(ReportUserSlideStatistics, "", "")},
	{"GET /training/analytics/v1/surveys/questionDefinitions", analyticsRows(reportQuestions, "", "")},
	{"GET /training/analytics/v1/surveys/answers", analyticsRows(reportAnswers, "startDateTime", "endDateTime")},
	{"GET /training/analytics/v1/rapidRefresh/answers", analyticsRows(ReportRapidRefreshAnswers, "", "")},
	{"GET /training/v1/feed/training-course-progress", feedCourseProgress},
	{"GET /feed/users", feedUsers},
	{"GET /feed/groups", feedGroups},
	{"GET /feed/group_users", feedGroupUsers},
	{"GET /feed/sites", feedSites},
	{"GET /feed/site_members", feedSiteMembers},
	{"GET /webhooks/v1/webhooks", listWebhooks},
	{"POST /webhooks/v1/webhooks", createWebhook},
	{"GET /webhooks/v1/webhooks/{webhookId}", getWebhook},
	{"PUT /webhooks/v1/webhooks/{webhookId}", updateWebhook},
	{"DELETE /webhooks/v1/webhooks/{webhookId}", deleteWebhook},
	{"GET /webhooks/v1/token", webhookToken},
	{"POST /webhooks/v1/token", webhookToken},
}

// answer runs h under the read lock for a GET and the write lock for any
// other method, whose body it reads first, and writes what h returns.
func (s *Server) answer(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := &call{Request: r, cfg: s.cfg}
		var err error
		if r.Method != http.MethodGet {
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
		out, err := h(c)
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
