// Package otel turns an edapp client's [edapp.Observer] hook into
// OpenTelemetry spans and metrics. It is a module of its own, so that
// importers of the SDK never inherit OpenTelemetry's dependencies.
//
//	obs, err := edappotel.NewObserver() // the global providers
//	if err != nil { ... }
//	client, err := edapp.NewClient(token, edapp.WithObserver(obs))
//
// Each call becomes a client span named after its method and route
// template ("GET /v2/users/{userId}"), a child of the span in the call's
// context. Its attempts and waits are events on that span. The metrics
// follow OpenTelemetry's HTTP client conventions where they apply:
//
//   - http.client.request.duration (s, histogram): each attempt, by
//     http.request.method, url.template, http.response.status_code and
//     error.type.
//   - edapp.client.calls: calls by method, route and status class (2xx,
//     4xx, 5xx, or "error" when no answer came).
//   - edapp.client.attempts: attempts sent, by the same; a retried call
//     counts one call and several attempts.
//   - edapp.client.retries: attempts after the first, by route.
//   - edapp.client.throttled: 429 answers, by route.
//   - edapp.client.wait.duration (s, histogram): time a call was held, by
//     edapp.wait.kind: the limiter's lanes (interactive, bulk), the
//     client-wide pause after a 429 (pause), and backoff between attempts.
//   - edapp.client.budget.used, edapp.client.budget.limit and
//     edapp.client.budget.remaining (observable gauges): requests in the
//     limiter's current window, its limit, and what is left of it, when
//     [WithLimiter] names a limiter that can report them
//     ([edapp.BudgetReporter], such as [edapp.WindowLimiter], or a
//     redislimit.Limiter, which reports the budget shared through Redis).
//
// Nothing recorded carries the API token, a request or response body, a
// header value, a path with ids or a query: routes are templates.
package otel
