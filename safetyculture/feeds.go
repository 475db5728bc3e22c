package safetyculture

import (
	"context"
	"github.com/edapp-go/edapp/internal/lenient"
	"iter"

	"github.com/edapp-go/edapp"
)

// FeedsService holds the data feeds: Training's course progress, and the
// organisation's users, groups and sites that a training export joins to.
// Each feed comes as a page-level call (ListX: one page, its rows and its
// next_page, so a job can resume) and an iterator (AllX). A feed follows
// metadata.next_page exactly as the service gives it, resolved against
// the base URL, until it is null or empty; it never builds a page URL of
// its own. A next_page naming another host is refused with
// [ErrForeignNextPage] (it would receive the token), and one met twice
// ends the walk with [ErrRepeatedCursor].
type FeedsService service

// CourseProgress is one learner's progress in one course. SafetyCulture's
// own exporter reads the feed in snake_case (course_id, opened_at, ...);
// another client reads it in camelCase (courseId, openedAt, ...): both are
// read, and anything else is kept in Extra.
type CourseProgress struct {
	CourseID         string          `json:"course_id"`
	CourseExternalID string          `json:"course_external_id"`
	CourseTitle      string          `json:"course_title"`
	UserID           string          `json:"user_id"`
	UserExternalID   string          `json:"user_external_id"`
	UserEmail        string          `json:"user_email"`
	UserFirstName    string          `json:"user_first_name"`
	UserLastName     string          `json:"user_last_name"`
	OpenedAt         edapp.Time      `json:"opened_at"`    // zero: not opened
	CompletedAt      edapp.Time      `json:"completed_at"` // zero: not completed
	DueAt            edapp.Time      `json:"due_at"`       // zero: no due date
	TotalLessons     int             `json:"total_lessons"`
	CompletedLessons int             `json:"completed_lessons"`
	ProgressPercent  float64         `json:"progress_percent"`
	Score            float64         `json:"score"`
	Extra            edapp.RawFields `json:"-"`
	raw              string          // the row as received; see Raw
}

// The camelCase spellings of the course-progress feed, read where the
// snake_case member is absent.
func init() {
	lenient.Alias[CourseProgress](
		lenient.Spelling{Name: "courseId", Field: "CourseID"},
		lenient.Spelling{Name: "courseExternalId", Field: "CourseExternalID"},
		lenient.Spelling{Name: "courseTitle", Field: "CourseTitle"},
		lenient.Spelling{Name: "userId", Field: "UserID"},
		lenient.Spelling{Name: "userExternalId", Field: "UserExternalID"},
		lenient.Spelling{Name: "userEmail", Field: "UserEmail"},
		lenient.Spelling{Name: "userFirstName", Field: "UserFirstName"},
		lenient.Spelling{Name: "userLastName", Field: "UserLastName"},
		lenient.Spelling{Name: "openedAt", Field: "OpenedAt"},
		lenient.Spelling{Name: "completedAt", Field: "CompletedAt"},
		lenient.Spelling{Name: "dueAt", Field: "DueAt"},
		lenient.Spelling{Name: "totalLessons", Field: "TotalLessons"},
		lenient.Spelling{Name: "completedLessons", Field: "CompletedLessons"},
		lenient.Spelling{Name: "progressPercent", Field: "ProgressPercent"},
	)
}

// User is a user of the organisation, as the users feed sends it.
type User struct {
	ID             string          `json:"id"`
	OrganisationID string          `json:"organisation_id"`
	Email          string          `json:"email"`
	FirstName      string          `json:"firstname"`
	LastName       string          `json:"lastname"`
	Active         *bool           `json:"active"` // nil: not sent (or not a boolean)
	LastSeenAt     edapp.Time      `json:"last_seen_at"`
	SeatType       string          `json:"seat_type"`
	CreatedAt      edapp.Time      `json:"created_at"`
	Extra          edapp.RawFields `json:"-"`
	raw            string          // the row as received; see Raw
}

// Group is a group of users. Groups are flat; sites form the hierarchy.
type Group struct {
	ID             string          `json:"id"`
	Name           string          `json:"name"`
	OrganisationID string          `json:"organisation_id"`
	Extra          edapp.RawFields `json:"-"`
	raw            string          // the row as received; see Raw
}

// GroupUser says a user is in a group.
type GroupUser struct {
	UserID         string          `json:"user_id"`
	GroupID        string          `json:"group_id"`
	OrganisationID string          `json:"organisation_id"`
	Extra          edapp.RawFields `json:"-"`
	raw            string          // the row as received; see Raw
}

// Site is a site (a location, area or region) of the organisation.
type Site struct {
	ID             string          `json:"id"`
	Name           string          `json:"name"`
	CreatorID      string          `json:"creator_id"`
	OrganisationID string          `json:"organisation_id"`
	Deleted        bool            `json:"deleted"`
	SiteUUID       string          `json:"site_uuid"`
	MetaLabel      string          `json:"meta_label"`
	ParentID       string          `json:"parent_id"` // the parent's site_uuid; "" at the top
	Extra          edapp.RawFields `json:"-"`
	raw            string          // the row as received; see Raw
}

// SiteMember says a user is a member of a site.
type SiteMember struct {
	SiteID   string          `json:"site_id"`
	MemberID string          `json:"member_id"`
	Extra    edapp.RawFields `json:"-"`
	raw      string          // the row as received; see Raw
}

var (
	feedCourseProgressRows = feed{routeFeedCourseProgress, feedCourseProgress}
	feedUserRows           = feed{routeFeedUsers, feedUsers}
	feedGroupRows          = feed{routeFeedGroups, feedPlain}
	feedGroupUserRows      = feed{routeFeedGroupUsers, feedPlain}
	feedSiteRows           = feed{routeFeedSites, feedSites}
	feedSiteMemberRows     = feed{routeFeedSiteMembers, feedPlain}
)

// ListCourseProgress returns one page of course progress: with
// opts.NextPage, the page it names. Without CompletionStatus the service's
// default applies, which is not published: set it to be sure.
//
// SafetyCulture API: GET /training/v1/feed/training-course-progress
func (s *FeedsService) ListCourseProgress(ctx context.Context, opts *FeedOptions, reqOpts ...edapp.RequestOption) (*FeedPage[CourseProgress], error) {
	return feedPageOf[CourseProgress](ctx, s.client, feedCourseProgressRows, opts, reqOpts)
}

// AllCourseProgress iterates over the course progress feed.
//
// SafetyCulture API: GET /training/v1/feed/training-course-progress
func (s *FeedsService) AllCourseProgress(ctx context.Context, opts *FeedOptions, reqOpts ...edapp.RequestOption) iter.Seq2[CourseProgress, error] {
	return walkFeed[CourseProgress](ctx, s.client, feedCourseProgressRows, opts, reqOpts)
}

// ListUsers returns one page of the users feed (active users only unless
// opts.IncludeInactive).
//
// SafetyCulture API: GET /feed/users
func (s *FeedsService) ListUsers(ctx context.Context, opts *FeedOptions, reqOpts ...edapp.RequestOption) (*FeedPage[User], error) {
	return feedPageOf[User](ctx, s.client, feedUserRows, opts, reqOpts)
}

// AllUsers iterates over the users feed, with the service's defaults.
//
// SafetyCulture API: GET /feed/users
func (s *FeedsService) AllUsers(ctx context.Context, reqOpts ...edapp.RequestOption) iter.Seq2[User, error] {
	return walkFeed[User](ctx, s.client, feedUserRows, nil, reqOpts)
}

// ListGroups returns one page of the groups feed.
//
// SafetyCulture API: GET /feed/groups
func (s *FeedsService) ListGroups(ctx context.Context, opts *FeedOptions, reqOpts ...edapp.RequestOption) (*FeedPage[Group], error) {
	return feedPageOf[Group](ctx, s.client, feedGroupRows, opts, reqOpts)
}

// AllGroups iterates over the groups feed.
//
// SafetyCulture API: GET /feed/groups
func (s *FeedsService) AllGroups(ctx context.Context, reqOpts ...edapp.RequestOption) iter.Seq2[Group, error] {
	return walkFeed[Group](ctx, s.client, feedGroupRows, nil, reqOpts)
}

// ListGroupUsers returns one page of the group membership feed.
//
// SafetyCulture API: GET /feed/group_users
func (s *FeedsService) ListGroupUsers(ctx context.Context, opts *FeedOptions, reqOpts ...edapp.RequestOption) (*FeedPage[GroupUser], error) {
	return feedPageOf[GroupUser](ctx, s.client, feedGroupUserRows, opts, reqOpts)
}

// AllGroupUsers iterates over the group membership feed.
//
// SafetyCulture API: GET /feed/group_users
func (s *FeedsService) AllGroupUsers(ctx context.Context, reqOpts ...edapp.RequestOption) iter.Seq2[GroupUser, error] {
	return walkFeed[GroupUser](ctx, s.client, feedGroupUserRows, nil, reqOpts)
}

// ListSites returns one page of the sites feed.
//
// SafetyCulture API: GET /feed/sites
func (s *FeedsService) ListSites(ctx context.Context, opts *FeedOptions, reqOpts ...edapp.RequestOption) (*FeedPage[Site], error) {
	return feedPageOf[Site](ctx, s.client, feedSiteRows, opts, reqOpts)
}

// AllSites iterates over the sites feed, with the service's defaults.
//
// SafetyCulture API: GET /feed/sites
func (s *FeedsService) AllSites(ctx context.Context, reqOpts ...edapp.RequestOption) iter.Seq2[Site, error] {
	return walkFeed[Site](ctx, s.client, feedSiteRows, nil, reqOpts)
}

// ListSiteMembers returns one page of the site membership feed.
//
// SafetyCulture API: GET /feed/site_members
func (s *FeedsService) ListSiteMembers(ctx context.Context, opts *FeedOptions, reqOpts ...edapp.RequestOption) (*FeedPage[SiteMember], error) {
	return feedPageOf[SiteMember](ctx, s.client, feedSiteMemberRows, opts, reqOpts)
}

// AllSiteMembers iterates over the site membership feed.
//
// SafetyCulture API: GET /feed/site_members
func (s *FeedsService) AllSiteMembers(ctx context.Context, reqOpts ...edapp.RequestOption) iter.Seq2[SiteMember, error] {
	return walkFeed[SiteMember](ctx, s.client, feedSiteMemberRows, nil, reqOpts)
}
