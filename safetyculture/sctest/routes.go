package sctest

import (
	"cmp"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

// handler answers a route under the store's lock, unless it sets err.
type handler func(c *call) any

type call struct {
	*http.Request
	st   *store
	now  time.Time
	cfg  config
	body []byte
	err  *apiError // answered instead
}

// route is one route; catalogue: the service's rate-limit table lists it.
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
}

func (s *Server) answer(rt route) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !s.admit(w, rt) {
			return
		}
		lock, unlock := s.mu.RLock, s.mu.RUnlock
		if r.Method != http.MethodGet {
			lock, unlock = s.mu.Lock, s.mu.Unlock
		}
		lock()
		defer unlock()
		c := &call{Request: r, st: s.st, now: s.Now(), cfg: s.cfg, body: body}
		if out := rt.handle(c); c.err != nil {
			writeError(w, c.err)
		} else {
			fakeserver.WriteJSON(w, http.StatusOK, out)
		}
	}
}

type apiError struct {
	status int
	msg    string
}

// writeError answers the service's error body, with the gRPC code its
// gateway pairs with the status.
func writeError(w http.ResponseWriter, e *apiError) {
	code := map[int]int{http.StatusBadRequest: 3, http.StatusRequestEntityTooLarge: 3, http.StatusNotFound: 5,
		http.StatusTooManyRequests: 8, http.StatusUnauthorized: 16}[e.status]
	fakeserver.WriteJSON(w, e.status, map[string]any{"code": cmp.Or(code, 13), "message": e.msg, "details": []any{}})
}

// find looks a record up by id. A missing one fails the request, 404,
// and is found as a zero record, so that the handler runs on harmlessly.
func find[T any](c *call, get func(id string) *T, id, what string) *T {
	if v := get(id); v != nil {
		return v
	}
	if c.err == nil {
		c.err = &apiError{http.StatusNotFound, what + " " + id + " not found"}
	}
	return new(T)
}

func page[T any](c *call, items []T) any {
	return fakeserver.Page(items, c.intParam("page", 1, 1<<30), c.intParam("pageSize", 25, 1000), fakeserver.Same)
}

func (c *call) intParam(name string, def, max int) int {
	if n, err := strconv.Atoi(c.URL.Query().Get(name)); err == nil && n >= 1 {
		return min(n, max)
	}
	return def
}

func (c *call) boolParam(name string) bool {
	v, _ := strconv.ParseBool(c.URL.Query().Get(name))
	return v
}

func (c *call) timeParam(name string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, c.URL.Query().Get(name))
	return t
}

func whoAmI(c *call) any {
	out := wireWhoAmI{OrganisationID: c.st.orgID}
	if u := c.st.users.Get(c.st.ownerID); u != nil {
		out.UserID, out.Firstname, out.Lastname = u.ID, u.Firstname, u.Lastname
	}
	return out
}

// wt writes a time as the service does, "" when unset (the feeds' way).
func wt(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// wtp writes a time, null when unset (the camelCase endpoints' way).
func wtp(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := wt(t)
	return &s
}

type wireFeed[T any] struct {
	Metadata wireFeedMetadata `json:"metadata"`
	Data     []T              `json:"data"`
}
