package safetyculture

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/bridge"
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

// route is one endpoint: its own transport, limiter and pause after a 429.
type route struct {
	key    string
	class  LimitClass
	caller bridge.Caller
	warned sync.Once // the x-ratelimit-limit disagreement was logged
}

// route returns the endpoint of method and template, made on first use.
func (c *Client) route(method, template string) (*route, error) {
	key := method + " " + template
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.routes[key]; r != nil {
		return r, nil
	}
	r := &route{key: key, class: ClassOf(key)}
	bc := *c.bc
	bc.PauseScope = "the requests of " + key + " only"
	if c.limiterFor != nil {
		if l := c.limiterFor(key); l != nil {
			bc.Limiter = l
		}
	} else {
		l, err := edapp.NewWindowLimiter(r.class.Limit(), limitWindow)
		if err != nil {
			return nil, err
		}
		bc.Limiter = l
	}
	caller, err := bridge.NewCaller(bc)
	if err != nil {
		return nil, err
	}
	r.caller = caller
	c.routes[key] = r
	return r, nil
}

// answered checks an answer's rate-limit headers: a limit other than the
// class's is logged once. A 429's pause, which holds this endpoint's calls
// only, is logged by the endpoint's transport.
func (r *route) answered(ctx context.Context, log *slog.Logger, status int, h http.Header) {
	if v := strings.TrimSpace(h.Get("X-Ratelimit-Limit")); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n != r.class.Limit() {
			r.warned.Do(func() {
				if log != nil {
					log.LogAttrs(ctx, slog.LevelWarn, "safetyculture: the service's rate limit differs from the one assumed for this endpoint",
						slog.String("route", r.key), slog.Int("assumed", r.class.Limit()), slog.Int("x-ratelimit-limit", n))
				}
			})
		}
	}
}

// Routes lists every route the client calls, "METHOD /path/template", for
// a WithLimiter function or a budget per route.
func Routes() []string {
	out := make([]string, 0, len(allRoutes))
	out = append(out, allRoutes...)
	return out
}
