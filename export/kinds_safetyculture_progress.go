package export

import (
	"context"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture"
)

// probeAhead is how far ahead of the run's start the course-progress
// probe asks for the rows modified after: no row can be, unless the
// service ignores the filter (a clock a day off would read as ignored,
// which costs a full walk, never a missed row).
const probeAhead = 24 * time.Hour

// scCourseProgressKind is the course-progress feed, every status (never
// completed only), in pages of Options.PageSize (the feed's most, 1000, by
// default). Its rows carry no modified time to check a
// modifiedAfter filter against, so the run probes once whether the
// service honours it: when it does, the kind is fetched from its cursor
// minus the overlap; when it does not, and every MaxAge anyway, it is
// fetched in full and mirrored, so that resets and deletions arrive.
var scCourseProgressKind = Kind{Name: "course_progress", Columns: jsonFields[scProgressRow](), Incremental: true, Remirror: true,
	KeyFields: jsonFields[scProgressRow](), Overlap: SafetyCultureOverlap, probe: probeModifiedAfter,
	fetch: func(ctx context.Context, x *fetcher, p Plan, s *stream) error {
		return listAll(ctx, x, s, func(o []edapp.RequestOption) seqOf[scProgressRow] {
			opts := &safetyculture.FeedOptions{Limit: min(x.pageSize, safetyculture.MaxPageSize), CompletionStatus: safetyculture.CompletionAll, ModifiedAfter: p.From}
			return mapSeq(x.sc.Feeds.AllCourseProgress(ctx, opts, o...), progressRowOf)
		}, nil)
	}}

// probeModifiedAfter asks the course-progress feed for one row modified
// after probeAhead from now: none says the service honours modifiedAfter.
// The request takes a slot of the run's pool, as a walk's do; its wait
// for the budget is the kind's, failed or not.
func probeModifiedAfter(ctx context.Context, x *fetcher, now time.Time) (bool, time.Duration, error) {
	if err := x.pool.enter(ctx); err != nil {
		return false, 0, err
	}
	opts := &safetyculture.FeedOptions{Limit: 1, CompletionStatus: safetyculture.CompletionAll, ModifiedAfter: now.Add(probeAhead)}
	var resp edapp.Response
	page, err := x.sc.Feeds.ListCourseProgress(ctx, opts, edapp.WithBulk(), edapp.WithInFlight(x.pool.slots), edapp.WithResponseInto(&resp))
	if err != nil {
		return false, resp.Waited, err
	}
	x.pool.open()
	return len(page.Items) == 0, resp.Waited, nil
}
