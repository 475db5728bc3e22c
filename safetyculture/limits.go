package safetyculture

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/edapp-go/edapp"
)

// LimitClass is one of SafetyCulture's rate-limit classes. The service
// states its limits per user: 200 requests a minute for each listed
// Training catalogue endpoint, 800 for every other. The client reads
// "each" as per endpoint (method and path template): an assumption, which
// it checks against x-ratelimit-limit whenever the service sends one, and
// logs a disagreement once per endpoint.
type LimitClass string

const (
	ClassCatalogue LimitClass = "catalogue" // 200 a minute per endpoint
	ClassOther     LimitClass = "other"     // 800 a minute per endpoint
)

// Limit is the class's requests per [LimitWindow].
func (c LimitClass) Limit() int {
	if c == ClassCatalogue {
		return 200
	}
	return 800
}

// LimitWindow is the window of the stated limits.
const LimitWindow = time.Minute

// limitWindow is the default limiters' window: LimitWindow and 2 s of
// margin against clock skew and latency, as the root client keeps.
const limitWindow = LimitWindow + 2*time.Second

// catalogueRoutes are the endpoints SafetyCulture lists at 200 a minute.
var catalogueRoutes = map[string]bool{
	"GET " + routeCollections:       true,
	"GET " + routeCollectionCourses: true,
	"GET " + routeCourses:           true,
	"GET " + routeCourseLessons:     true,
	"PUT " + routeCourseAssignments: true,
	"GET " + routePaths:             true,
	"GET " + routePath:              true,
	"GET " + routeLeaderboards:      true,
	"GET " + routeRankings:          true,
	"GET " + routeRapidRefreshes:    true,
	"GET " + routeRapidRefresh:      true,
}

// ClassOf returns the limit class of route, "METHOD /path/template".
func ClassOf(route string) LimitClass {
	if catalogueRoutes[route] {
		return ClassCatalogue
	}
	return ClassOther
}

// LimitFor returns the stated limit of route, in requests per LimitWindow.
func LimitFor(route string) int { return ClassOf(route).Limit() }

// classLimiter is a route's default limiter: a window limiter of its
// own, with its class's limit.
func classLimiter(route string) edapp.Limiter {
	l, err := edapp.NewWindowLimiter(ClassOf(route).Limit(), limitWindow)
	if err != nil {
		panic(err) // unreachable: every class's limit is valid
	}
	return l
}

// answered checks an answer's rate-limit headers: a limit other than the
// route's class's is logged once per route. A 429's pause, which holds
// this endpoint's calls only, is logged by the endpoint's transport.
func (c *Client) answered(ctx context.Context, route string, h http.Header) {
	v := strings.TrimSpace(h.Get("X-Ratelimit-Limit"))
	if v == "" || c.logger == nil {
		return
	}
	n, err := strconv.Atoi(v)
	assumed := ClassOf(route).Limit()
	if err != nil || n == assumed {
		return
	}
	c.warnMu.Lock()
	first := !c.warned[route]
	c.warned[route] = true
	c.warnMu.Unlock()
	if first {
		c.logger.LogAttrs(ctx, slog.LevelWarn, "safetyculture: the service's rate limit differs from the one assumed for this endpoint",
			slog.String("route", route), slog.Int("assumed", assumed), slog.Int("x-ratelimit-limit", n))
	}
}

// Routes lists every route the client calls, "METHOD /path/template", for
// an edapp.WithRouteLimiter function or a budget per route.
func Routes() []string {
	out := make([]string, 0, len(allRoutes))
	out = append(out, allRoutes...)
	return out
}
