package sctest

import (
	"encoding/base64"
	"slices"
	"strconv"
	"time"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

// Completion statuses the course-progress feed takes.
const (
	CompletionAll          = "COMPLETION_STATUS_ALL"
	CompletionCompleted    = "COMPLETION_STATUS_COMPLETED"
	CompletionNonCompleted = "COMPLETION_STATUS_NON_COMPLETED"
)

// feed converts only the rows of the page asked for, so that a walk of a
// large feed costs each page its own. next_page carries the first
// request's filters, as the service's does.
func feed[S, T any](c *call, all []S, conv func(S) T, withToken bool) any {
	b, _ := base64.RawURLEncoding.DecodeString(c.URL.Query().Get("cursor"))
	offset, _ := strconv.Atoi(string(b))
	start := min(max(offset, 0), len(all))
	end := min(start+c.intParam("limit", 100, 1000), len(all))
	out := wireFeed[T]{Data: fakeserver.Map(all[start:end], conv)}
	if end < len(all) {
		q := c.URL.Query()
		token := base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end)))
		q.Set("cursor", token)
		next := c.URL.Path + "?" + q.Encode()
		out.Metadata.NextPage = &next
		if withToken {
			out.Metadata.NextPageToken = &token
		}
	}
	if remaining := len(all) - end; !withToken {
		out.Metadata.RemainingRecords = &remaining
	}
	return out
}

func orgFeed[T any](rows func(c *call) []T) handler {
	return func(c *call) any { return feed(c, rows(c), fakeserver.Same, false) }
}

// feedUsers lists active users only, unless include_inactive=true.
var feedUsers = orgFeed(func(c *call) (rows []wireUser) {
	inactive := c.boolParam("include_inactive")
	for _, u := range c.st.users.All() {
		if u.Active || inactive {
			rows = append(rows, u.wireUser)
		}
	}
	return rows
})

var feedGroups = orgFeed(func(c *call) []wireGroup { return fakeserver.Map(c.st.groups.All(), deref) })

var feedGroupUsers = orgFeed(func(c *call) []wireGroupUser { return c.st.groupUsers })

var feedSiteMembers = orgFeed(func(c *call) []wireSiteMember { return c.st.siteMembers })

// feedSites lists deleted sites only with include_deleted=true; with
// show_only_leaf_nodes=true, only the sites no listed site has for parent.
var feedSites = orgFeed(func(c *call) (rows []wireSite) {
	deleted, leafOnly := c.boolParam("include_deleted"), c.boolParam("show_only_leaf_nodes")
	parents := map[string]bool{} // by site_uuid
	for _, s := range c.st.sites.All() {
		if s.ParentID != nil {
			parents[*s.ParentID] = parents[*s.ParentID] || deleted || !s.Deleted
		}
	}
	for _, s := range c.st.sites.All() {
		if (!s.Deleted || deleted) && !(leafOnly && parents[s.SiteUUID]) {
			rows = append(rows, *s)
		}
	}
	return rows
})

type progressFilter struct {
	status           string
	modifiedAfter    time.Time
	courseID, userID string
}

func (f progressFilter) match(p *ProgressSpec) bool {
	done := !p.CompletedAt.IsZero()
	switch {
	case f.status == CompletionCompleted && !done, f.status == CompletionNonCompleted && done:
		return false
	case f.courseID != "" && f.courseID != p.CourseID, f.userID != "" && f.userID != p.UserID:
		return false
	}
	return f.modifiedAfter.IsZero() || p.ModifiedAt.After(f.modifiedAfter)
}

func (st *store) progressMatching(f progressFilter) []*ProgressSpec {
	return slices.DeleteFunc(st.progress.All(), func(p *ProgressSpec) bool { return !f.match(p) })
}

func feedCourseProgress(c *call) any {
	q := c.URL.Query()
	f := progressFilter{status: fakeserver.OrDefault(q.Get("completion_status"), CompletionAll), courseID: q.Get("courseId"),
		userID: q.Get("userId"), modifiedAfter: c.timeParam("modifiedAfter")}
	return feed(c, c.st.progressMatching(f), func(p *ProgressSpec) wireProgress {
		u, co := c.st.users.Get(p.UserID), c.st.courses.Get(p.CourseID)
		return wireProgress{OpenedAt: wt(p.OpenedAt), CompletedAt: wt(p.CompletedAt),
			TotalLessons: p.TotalLessons, CompletedLessons: p.CompletedLessons,
			CourseID: co.ID, CourseExternalID: co.ExternalID, CourseTitle: co.Title,
			UserEmail: u.Email, UserFirstName: u.Firstname, UserLastName: u.Lastname,
			UserID: u.ID, UserExternalID: u.externalID, ProgressPercent: p.ProgressPercent, Score: p.Score, DueAt: wt(p.DueAt)}
	}, true)
}

// CourseProgressCount counts the course-progress rows the feed holds for
// a completion status, for a test to compare an export with.
func (s *Server) CourseProgressCount(status string) int {
	return view(s, func(st *store) int { return len(st.progressMatching(progressFilter{status: status})) })
}
