package scsrc

import (
	"context"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/internal/sdkwalk"
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
var scCourseProgressKind = kind{Kind: export.Kind{Name: "course_progress", Columns: jsonFields[scProgressRow](), Incremental: true, Remirror: true,
	KeyFields: jsonFields[scProgressRow](), Overlap: Overlap},
	probe: probeModifiedAfter,
	fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
		return sdkwalk.List(ctx, f, func(o []edapp.RequestOption) sdkwalk.Seq[scProgressRow] {
			opts := &safetyculture.FeedOptions{Limit: min(f.PageSize(), safetyculture.MaxPageSize), CompletionStatus: safetyculture.CompletionAll, ModifiedAfter: f.Plan().From}
			return mapSeq(src.c.Feeds.AllCourseProgress(ctx, opts, o...), progressRowOf)
		}, nil)
	}}

// probeModifiedAfter asks the course-progress feed for one row modified
// after probeAhead from the run's start: none says the service honours
// modifiedAfter. The request takes a place of the run's pool, as a walk's
// do; its wait for the budget is the kind's, failed or not.
func probeModifiedAfter(ctx context.Context, src *Source, f *export.Fetch) (bool, time.Duration, error) {
	if err := f.Enter(ctx); err != nil {
		return false, 0, err
	}
	opts := &safetyculture.FeedOptions{Limit: 1, CompletionStatus: safetyculture.CompletionAll, ModifiedAfter: f.Now().Add(probeAhead)}
	var resp edapp.Response
	page, err := src.c.Feeds.ListCourseProgress(ctx, opts, edapp.WithBulk(), edapp.WithInFlight(f.InFlight()), edapp.WithResponseInto(&resp))
	if err != nil {
		return false, resp.Waited, err
	}
	f.Answered()
	return len(page.Items) == 0, resp.Waited, nil
}
