package safetyculture

// The path templates of every operation, as the Observer and WithRouteLimiter
// see them.
const (
	routeCourses           = "/training/courses/v1"
	routeCourseLessons     = "/training/courses/v1/{courseId}/lessons"
	routeLesson            = "/training/lessons/v1/{lessonId}"
	routeCourseAssignments = "/training/courses/v1/{courseId}/assignments"
	routeProgressReset     = "/training/courseprogress/v1/reset"
	routeCollections       = "/training/collections/v1"
	routeCollectionCourses = "/training/collections/v1/{courseCollectionId}/courses"
	routePaths             = "/training/paths/v1"
	routePath              = "/training/paths/v1/{pathId}"
	routeRapidRefreshes    = "/training/rapid-refresh/v1"
	routeRapidRefresh      = "/training/rapid-refresh/v1/{rapidRefreshId}"
	routeLeaderboards      = "/training/individualleaderboards/v1"
	routeRankings          = "/training/individualleaderboards/v1/rankings"

	routeCourseStatistics         = "/training/analytics/v1/courses/statistics"
	routeLessonStatistics         = "/training/analytics/v1/lessons/statistics"
	routeLessonAttempts           = "/training/analytics/v1/lessons/attempts"
	routeLessonProgressEvents     = "/training/analytics/v1/lessons/progress/events"
	routeUserLessonProgress       = "/training/analytics/v1/users/{userId}/lessons/progress"
	routeUserLessonProgressEvents = "/training/analytics/v1/users/{userId}/lessons/progress/events"
	routeSlideStatistics          = "/training/analytics/v1/slides/statistics"
	routeUserSlideStatistics      = "/training/analytics/v1/users/{userId}/slides/statistics"
	routeSurveyQuestions          = "/training/analytics/v1/surveys/questionDefinitions"
	routeSurveyAnswers            = "/training/analytics/v1/surveys/answers"
	routeRapidRefreshAnswers      = "/training/analytics/v1/rapidRefresh/answers"

	routeFeedCourseProgress = "/training/v1/feed/training-course-progress"
	routeFeedUsers          = "/feed/users"
	routeFeedGroups         = "/feed/groups"
	routeFeedGroupUsers     = "/feed/group_users"
	routeFeedSites          = "/feed/sites"
	routeFeedSiteMembers    = "/feed/site_members"

	routeWebhooks     = "/webhooks/v1/webhooks"
	routeWebhook      = "/webhooks/v1/webhooks/{webhookId}"
	routeWebhookToken = "/webhooks/v1/token"
)

// allRoutes is every route the client calls, "METHOD /path/template".
var allRoutes = []string{
	"GET " + routeCourses, "GET " + routeCourseLessons, "GET " + routeLesson,
	"PUT " + routeCourseAssignments, "POST " + routeProgressReset,
	"GET " + routeCollections, "GET " + routeCollectionCourses,
	"GET " + routePaths, "GET " + routePath, "GET " + routeRapidRefreshes, "GET " + routeRapidRefresh,
	"GET " + routeLeaderboards, "GET " + routeRankings,
	"GET " + routeCourseStatistics, "GET " + routeLessonStatistics, "GET " + routeLessonAttempts,
	"GET " + routeLessonProgressEvents, "GET " + routeUserLessonProgress, "GET " + routeUserLessonProgressEvents,
	"GET " + routeSlideStatistics, "GET " + routeUserSlideStatistics, "GET " + routeSurveyQuestions,
	"GET " + routeSurveyAnswers, "GET " + routeRapidRefreshAnswers,
	"GET " + routeFeedCourseProgress, "GET " + routeFeedUsers, "GET " + routeFeedGroups,
	"GET " + routeFeedGroupUsers, "GET " + routeFeedSites, "GET " + routeFeedSiteMembers,
	"GET " + routeWebhooks, "POST " + routeWebhooks, "GET " + routeWebhook, "PUT " + routeWebhook,
	"DELETE " + routeWebhook, "GET " + routeWebhookToken,
}
