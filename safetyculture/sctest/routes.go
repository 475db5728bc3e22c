package sctest

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

type route struct {
	pattern string
	handle  http.HandlerFunc
}

// routeTable lists every route the fake answers, by family.
func routeTable(s api) []route {
	return append(trainingRoutes(s), orgRoutes(s)...)
}

func trainingRoutes(s api) []route {
	return []route{
		// Catalogue and writes.
		{"GET /training/courses/v1", s.listCourses},
		{"GET /training/courses/v1/{courseId}/lessons", s.courseLessons},
		{"GET /training/lessons/v1/{id}", s.getLesson},
		{"PUT /training/courses/v1/{courseId}/assignments", s.putAssignments},
		{"POST /training/courseprogress/v1/reset", s.resetProgress},
		{"GET /training/collections/v1", s.listCollections},
		{"GET /training/collections/v1/{courseCollectionId}/courses", s.collectionCourses},
		{"GET /training/paths/v1", s.listPaths},
		{"GET /training/paths/v1/{pathId}", s.getPath},
		{"GET /training/rapid-refresh/v1", s.listRapidRefresh},
		{"GET /training/rapid-refresh/v1/{id}", s.getRapidRefresh},
		{"GET /training/individualleaderboards/v1", s.listLeaderboards},
		{"GET /training/individualleaderboards/v1/rankings", s.rankings},
		// Analytics.
		{"GET /training/analytics/v1/courses/statistics", analyticsAPI(s).courseStatistics},
		{"GET /training/analytics/v1/lessons/statistics", analyticsAPI(s).lessonStatistics},
		{"GET /training/analytics/v1/lessons/attempts", analyticsAPI(s).lessonAttempts},
		{"GET /training/analytics/v1/lessons/progress/events", analyticsAPI(s).progressEvents},
		{"GET /training/analytics/v1/users/{userId}/lessons/progress", analyticsAPI(s).userLessonProgress},
		{"GET /training/analytics/v1/users/{userId}/lessons/progress/events", analyticsAPI(s).progressEvents},
		{"GET /training/analytics/v1/slides/statistics", analyticsAPI(s).genericReport(ReportSlideStatistics)},
		{"GET /training/analytics/v1/users/{userId}/slides/statistics", analyticsAPI(s).genericReport(ReportUserSlideStatistics)},
		{"GET /training/analytics/v1/surveys/questionDefinitions", analyticsAPI(s).surveyQuestions},
		{"GET /training/analytics/v1/surveys/answers", analyticsAPI(s).surveyAnswers},
		{"GET /training/analytics/v1/rapidRefresh/answers", analyticsAPI(s).genericReport(ReportRapidRefreshAnswers)},
		{"GET /training/v1/feed/training-course-progress", s.feedCourseProgress},
	}
}

// orgRoutes are the routes outside /training: who the token is, the
// organisation's feeds and its webhooks.
func orgRoutes(s api) []route {
	return []route{
		{"GET /accounts/user/v1/user:WhoAmI", s.whoAmI},
		{"GET /feed/users", s.feedUsers},
		{"GET /feed/groups", s.feedGroups},
		{"GET /feed/group_users", s.feedGroupUsers},
		{"GET /feed/sites", s.feedSites},
		{"GET /feed/site_members", s.feedSiteMembers},
		// Webhooks.
		{"GET /webhooks/v1/webhooks", s.listWebhooks},
		{"POST /webhooks/v1/webhooks", s.createWebhook},
		{"GET /webhooks/v1/webhooks/{webhookId}", s.getWebhook},
		{"PUT /webhooks/v1/webhooks/{webhookId}", s.updateWebhook},
		{"DELETE /webhooks/v1/webhooks/{webhookId}", s.deleteWebhook},
		{"GET /webhooks/v1/token", s.getWebhookToken},
		{"POST /webhooks/v1/token", s.regenerateWebhookToken},
	}
}

func (s *Server) newRouter() *http.ServeMux {
	mux := http.NewServeMux()
	for _, rt := range routeTable(api{s}) {
		mux.HandleFunc(rt.pattern, rt.handle)
	}
	return mux
}

// paging reads page (1-based, default 1) and pageSize (or page_size;
// default 25, at most 1000); a bad value gets 400 and false.
func paging(w http.ResponseWriter, r *http.Request) (page, size int, ok bool) {
	q := r.URL.Query()
	page, ok1 := positiveParam(q.Get("page"), 1, 1<<30)
	raw := q.Get("pageSize")
	if raw == "" {
		raw = q.Get("page_size")
	}
	size, ok2 := positiveParam(raw, 25, 1000)
	if !ok1 || !ok2 {
		writeError(w, http.StatusBadRequest, codeInvalidArgument, "page must be at least 1 and pageSize from 1 to 1000")
		return 0, 0, false
	}
	return page, size, true
}

// positiveParam reads a whole number from 1 to max; "" gives def.
func positiveParam(raw string, def, max int) (int, bool) {
	if raw == "" {
		return def, true
	}
	n, err := strconv.Atoi(raw)
	return n, err == nil && n >= 1 && n <= max
}

// writePage answers one page of items as {totalCount, items}.
func writePage[T any](w http.ResponseWriter, items []T, page, size int) {
	start := min((page-1)*size, len(items))
	end := min(start+size, len(items))
	writeJSON(w, http.StatusOK, wireList[T]{TotalCount: len(items), Items: append([]T{}, items[start:end]...)})
}

// listParam reads a filter given repeated or comma-joined (courseIds=a,b).
func listParam(r *http.Request, name string) []string {
	var out []string
	for _, v := range r.URL.Query()[name] {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func (s api) whoAmI(w http.ResponseWriter, _ *http.Request) {
	var out wireWhoAmI
	s.read(func(st *store, _ time.Time) {
		out.OrganisationID = st.orgID
		if u := st.users.Get(st.ownerID); u != nil {
			out.UserID, out.Firstname, out.Lastname = u.id, u.firstName, u.lastName
		}
	})
	writeJSON(w, http.StatusOK, out)
}
