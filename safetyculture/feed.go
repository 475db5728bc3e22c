package safetyculture

import (
	"context"
	"errors"
	"fmt"
	"github.com/edapp-go/edapp/internal/lenient"
	"iter"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/core"
)

// ErrForeignNextPage is a feed page whose next_page names another host
// than the client's base URL, or a path that leaves the base URL's path:
// following it would send the token there, so the walk ends with this
// error instead.
var ErrForeignNextPage = errors.New("safetyculture: next_page names another host")

// ErrRepeatedCursor is a feed whose next_page names a page the walk has
// already read: following it would never end.
var ErrRepeatedCursor = errors.New("safetyculture: next_page repeats a page already read")

// ErrBadNextPage is a feed page whose metadata.next_page is not a string
// or null: where the feed goes on is unknown, so the walk ends with this
// error rather than end short.
var ErrBadNextPage = errors.New("safetyculture: unreadable next_page")

// ErrEmptyPages is a feed that kept answering empty pages with a
// next_page, maxEmptyPages times in a row.
var ErrEmptyPages = errors.New("safetyculture: the feed answered too many empty pages in a row")

// maxEmptyPages bounds the empty pages a walk follows in a row.
const maxEmptyPages = 100

// FeedOptions ask for one page of a data feed. The first page is asked
// with the filters; each later one by NextPage alone, the next_page a page
// returned, followed exactly as given (the filters are in it), so a job
// that stored NextPage resumes where it stopped. Fields that a feed does
// not take are not sent to it.
type FeedOptions struct {
	// NextPage is a page's next_page; when set, nothing else is sent.
	NextPage string
	// Limit is the rows per page (the service's maximum for course
	// progress is 1000); 0: the service's default.
	Limit int

	// Course progress: CompletionStatus (unset: the service's default,
	// which is not published; SafetyCulture's exporter always asks for
	// completed progress, sctest answers all), CourseID, UserID and
	// ModifiedAfter (third-party sources say the feed takes them;
	// unverified).
	CompletionStatus CompletionStatus
	CourseID         string
	UserID           string
	ModifiedAfter    time.Time

	// Users: IncludeInactive also lists deactivated users.
	IncludeInactive bool
	// Sites: IncludeDeleted lists deleted sites too; ShowOnlyLeafNodes,
	// when set, says whether only the sites without children are listed.
	IncludeDeleted    bool
	ShowOnlyLeafNodes *bool
}

// CompletionStatus filters the course-progress feed.
type CompletionStatus string

const (
	CompletionAll          CompletionStatus = "COMPLETION_STATUS_ALL"
	CompletionCompleted    CompletionStatus = "COMPLETION_STATUS_COMPLETED"
	CompletionNotCompleted CompletionStatus = "COMPLETION_STATUS_NON_COMPLETED"
)

// feedKind says which of FeedOptions' filters a feed takes.
type feedKind int

const (
	feedPlain feedKind = iota
	feedCourseProgress
	feedUsers
	feedSites
)

// values are the first page's query parameters for a feed of kind.
func (o *FeedOptions) values(kind feedKind) url.Values {
	v := url.Values{}
	if o == nil {
		return v
	}
	if o.Limit > 0 {
		v.Set("limit", strconv.Itoa(o.Limit))
	}
	switch kind {
	case feedCourseProgress:
		setIf(v, "completion_status", string(o.CompletionStatus))
		setIf(v, "courseId", o.CourseID)
		setIf(v, "userId", o.UserID)
		if !o.ModifiedAfter.IsZero() {
			v.Set("modifiedAfter", o.ModifiedAfter.UTC().Format(time.RFC3339Nano))
		}
	case feedUsers:
		if o.IncludeInactive {
			v.Set("include_inactive", "true")
		}
	case feedSites:
		if o.IncludeDeleted {
			v.Set("include_deleted", "true")
		}
		if o.ShowOnlyLeafNodes != nil {
			v.Set("show_only_leaf_nodes", strconv.FormatBool(*o.ShowOnlyLeafNodes))
		}
	}
	return v
}

func setIf(v url.Values, key, value string) {
	if value != "" {
		v.Set(key, value)
	}
}

// FeedPage is one page of a data feed: its rows, and its next_page as the
// service gave it ("" at the end), to pass back in FeedOptions.NextPage.
//
// A first page (one asked for without NextPage) whose metadata carries
// remaining_records counts the whole feed: its Response's Total is the
// page's rows plus those remaining, as for a list's totalCount, so a walk
// that fills a WithResponseInto knows its total from its first page on.
// Remaining is the count as any page sent it.
type FeedPage[T any] struct {
	Items    []T
	NextPage string
	Response *edapp.Response

	received  int    // the rows the page held, those left out included
	remaining *int64 // metadata.remaining_records; nil: not sent
	route     string // the feed's, for errors
	client    *Client
}

// Remaining is the page's metadata.remaining_records, the rows the feed
// holds after this page, and whether the page sent a usable one (not
// negative). A hint, for progress: the walk follows next_page whatever it
// says.
func (p *FeedPage[T]) Remaining() (int, bool) {
	if p.remaining == nil || *p.remaining < 0 {
		return 0, false
	}
	// Capped so that a first page's rows plus it stay an int anywhere: no
	// walk reads as many (see MaxFeedPages).
	return int(min(*p.remaining, math.MaxInt32)), true
}

// feedAnswer is a feed page as the service sends it.
type feedAnswer[T any] struct {
	Metadata feedMetadata `json:"metadata"`
	Data     []T          `json:"data"`
	received int          // the rows sent, those dropped whole included
	whole    []edapp.DroppedRecord
}

// DroppedRecords is the rows dropped whole, with their bytes as sent.
func (a *feedAnswer[T]) DroppedRecords() []edapp.DroppedRecord { return a.whole }

// feedMetadata is a page's metadata. NextPageToken is the course-progress
// feed's (the walk follows next_page): a member known to a field keeps a
// clean page on the one-pass path.
type feedMetadata struct {
	NextPage         *string         `json:"next_page"`
	NextPageToken    *string         `json:"next_page_token"`
	RemainingRecords *int64          `json:"remaining_records"`
	Extra            edapp.RawFields `json:"-"`
}

func init() {
	lenient.Alias[feedMetadata](lenient.Spelling{Name: "nextPage", Field: "NextPage"})
}

// feed is one data feed: its route and the filters it takes.
type feed struct {
	route string
	kind  feedKind
}

// page fetches one page of f: the first with opts' filters, or the one
// opts.NextPage names.
func feedPageOf[T any](ctx context.Context, c *Client, f feed, opts *FeedOptions, reqOpts []edapp.RequestOption) (*FeedPage[T], error) {
	op := core.Operation{Method: http.MethodGet, Route: f.route, Path: f.route, Query: opts.values(f.kind)}
	if opts != nil && opts.NextPage != "" {
		path, query, err := c.resolveNextPage(opts.NextPage)
		if err != nil {
			return nil, err
		}
		op.Path, op.Query = path, core.RawQuery(query)
	}
	var a feedAnswer[T]
	resp, err := c.send(ctx, op, &a, true, reqOpts)
	if err != nil {
		return nil, err
	}
	for _, d := range resp.Dropped {
		if d == "metadata" || strings.HasPrefix(d, "metadata.next") {
			// Without its next_page the walk would end here, silently short.
			return nil, fmt.Errorf("%w: GET %s: the page's %s could not be read", ErrBadNextPage, f.route, d)
		}
	}
	p := &FeedPage[T]{Items: a.Data, Response: resp, received: a.received, remaining: a.Metadata.RemainingRecords,
		route: f.route, client: c}
	if a.Metadata.NextPage != nil {
		p.NextPage = strings.TrimSpace(*a.Metadata.NextPage)
	}
	if n, ok := p.Remaining(); ok && (opts == nil || opts.NextPage == "") {
		core.SetCount(resp, core.ListCount{Raw: p.received + n, Sent: true})
	}
	c.core.Page(ctx, f.route, 0, len(p.Items))
	return p, nil
}

// resolveNextPage resolves a next_page against the base URL and returns
// the path (relative to the base URL) and the query to send, as given. A
// next_page on another origin is refused; one outside the base URL's path
// prefix is taken as relative to it. A path with a dot segment left in it
// in any spelling ("%2e%2e", say), which a server would resolve out of the
// prefix, is refused, as is one that leaves the prefix. The errors hide
// the token.
func (c *Client) resolveNextPage(next string) (path, rawQuery string, err error) {
	u, err := url.Parse(next)
	if err != nil {
		return "", "", fmt.Errorf("%w: next_page %q is not a URL", edapp.ErrInvalidInput, c.redactURL(next))
	}
	ref := c.base.ResolveReference(u)
	if !sameOrigin(ref, c.base) || ref.User != nil {
		return "", "", fmt.Errorf("%w: %q", ErrForeignNextPage, c.redactURL(ref.Redacted()))
	}
	path = ref.EscapedPath()
	prefix := strings.TrimSuffix(c.base.EscapedPath(), "/")
	if prefix != "" && strings.HasPrefix(path, prefix+"/") {
		path = path[len(prefix):]
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	if leavesPrefix(path) {
		return "", "", fmt.Errorf("%w: %q leaves the base URL's path", ErrForeignNextPage, c.redactURL(ref.Redacted()))
	}
	return path, ref.RawQuery, nil
}

// sameOrigin compares scheme and host, a default port being no port.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(hostPort(a), hostPort(b))
}

func hostPort(u *url.URL) string {
	port := u.Port()
	if (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		port = ""
	}
	if port == "" {
		return u.Hostname()
	}
	return u.Hostname() + ":" + port
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// walkFeed yields every row of f from the first page on (or from
// opts.NextPage): WalkFeed over f's pages, each from the bulk lane.
func walkFeed[T any](ctx context.Context, c *Client, f feed, opts *FeedOptions, reqOpts []edapp.RequestOption) iter.Seq2[T, error] {
	perPage := append([]edapp.RequestOption{edapp.WithBulk()}, reqOpts...)
	list := func(ctx context.Context, o *FeedOptions, r ...edapp.RequestOption) (*FeedPage[T], error) {
		return feedPageOf[T](ctx, c, f, o, r)
	}
	return WalkFeed(ctx, list, opts, perPage...)
}

// WalkFeed yields every row of a feed through list, one of the ListX
// methods of [FeedsService], from the page opts asks for (the first, or
// opts.NextPage), following next_page as given until it is null or empty,
// with reqOpts on every page: what the AllX iterators do, for a walk that
// needs a filter they do not take (users with IncludeInactive, say). A
// next_page met twice, in any spelling, ends the walk with
// [ErrRepeatedCursor]; a walk past its bounds (see [MaxFeedPages] and
// [ErrFeedTooLong]) or a run of empty pages ([ErrEmptyPages]) ends with
// an error naming the feed. An error is yielded once and ends the walk.
func WalkFeed[T any](ctx context.Context, list func(context.Context, *FeedOptions, ...edapp.RequestOption) (*FeedPage[T], error),
	opts *FeedOptions, reqOpts ...edapp.RequestOption) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		cur := FeedOptions{}
		if opts != nil {
			cur = *opts
		}
		var walk *feedWalk
		for {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			p, err := list(ctx, &cur, reqOpts...)
			if err != nil {
				yield(zero, err)
				return
			}
			for _, row := range p.Items {
				if !yield(row, nil) {
					return
				}
			}
			if p.NextPage == "" {
				return
			}
			if walk == nil {
				walk = newFeedWalk(p.route)
			}
			if err := nextCheck(walk, p); err != nil {
				yield(zero, err)
				return
			}
			cur = FeedOptions{NextPage: p.NextPage}
		}
	}
}

// nextCheck refuses a next_page already followed, one that cannot be
// followed, and a walk past its bounds.
func nextCheck[T any](walk *feedWalk, p *FeedPage[T]) error {
	if err := walk.page(p.received, p.remaining); err != nil {
		return err
	}
	if p.client == nil {
		return fmt.Errorf("%w: a FeedPage not made by a ListX method", edapp.ErrInvalidInput)
	}
	path, query, err := p.client.resolveNextPage(p.NextPage)
	if err != nil {
		return err
	}
	return walk.follow(p.client, path, query)
}
