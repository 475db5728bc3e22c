package sctest

import (
	"net/http"
	"net/url"
	"time"
)

// Completion statuses the course-progress feed takes.
const (
	CompletionAll          = "COMPLETION_STATUS_ALL"
	CompletionCompleted    = "COMPLETION_STATUS_COMPLETED"
	CompletionNonCompleted = "COMPLETION_STATUS_NON_COMPLETED"
)

// progressFilter is what the course-progress feed was asked for.
type progressFilter struct {
	status           string
	modifiedAfter    time.Time
	courseID, userID string
}

// readProgressFilter reads completion_status (or completionStatus;
// default COMPLETION_STATUS_ALL), modifiedAfter (RFC 3339), courseId and
// userId. A bad value gets 400 and false.
func readProgressFilter(w http.ResponseWriter, q url.Values) (progressFilter, bool) {
	f := progressFilter{status: q.Get("completion_status"), courseID: q.Get("courseId"), userID: q.Get("userId")}
	if f.status == "" {
		f.status = q.Get("completionStatus")
	}
	switch f.status {
	case "":
		f.status = CompletionAll
	case CompletionAll, CompletionCompleted, CompletionNonCompleted:
	default:
		writeError(w, http.StatusBadRequest, codeInvalidArgument, "unknown completion status "+f.status)
		return f, false
	}
	if raw := q.Get("modifiedAfter"); raw != "" {
		t, err := time.Parse(time.RFC3339Nano, raw)
		if err != nil {
			writeError(w, http.StatusBadRequest, codeInvalidArgument, "modifiedAfter must be an RFC 3339 time")
			return f, false
		}
		f.modifiedAfter = t
	}
	return f, true
}

func (f progressFilter) match(k ucKey, p *courseProgress) bool {
	done := !p.completed.IsZero()
	switch {
	case f.status == CompletionCompleted && !done, f.status == CompletionNonCompleted && done:
		return false
	case f.courseID != "" && f.courseID != k.courseID, f.userID != "" && f.userID != k.userID:
		return false
	}
	return f.modifiedAfter.IsZero() || p.modified.After(f.modifiedAfter)
}

// feedCourseProgress answers GET /training/v1/feed/training-course-progress.
// Its metadata has next_page and next_page_token, no remaining_records.
func (s api) feedCourseProgress(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, ok := readFeedPage(w, q)
	if !ok {
		return
	}
	f, ok := readProgressFilter(w, q)
	if !ok {
		return
	}
	if s.cfg.ignoreModifiedAfter {
		f.modifiedAfter = time.Time{}
	}
	// Only the page's rows are built: a walk of a large feed costs each
	// page its own rows, not the whole feed's.
	var rows []wireProgress
	var total int
	s.read(func(st *store, _ time.Time) {
		keys := st.progressMatching(f)
		start, end := p.window(len(keys))
		total, rows = len(keys), st.progressRows(keys[start:end])
	})
	if s.cfg.camelCase {
		camel := make([]wireProgressCamel, 0, len(rows))
		for _, row := range rows {
			camel = append(camel, row.camel())
		}
		writeFeedPage(w, r, p, camel, total, false)
		return
	}
	writeFeedPage(w, r, p, rows, total, false)
}

// progressMatching are the keys of the progress rows f matches, in the
// feed's order.
func (st *store) progressMatching(f progressFilter) []ucKey {
	if f == (progressFilter{status: CompletionAll}) {
		return st.progressKeys // every row: no need to look each one up
	}
	var keys []ucKey
	for _, k := range st.progressKeys {
		if (f.courseID == "" || f.courseID == k.courseID) && (f.userID == "" || f.userID == k.userID) && f.match(k, st.progress[k]) {
			keys = append(keys, k)
		}
	}
	return keys
}

// progressRows are the feed's rows of keys.
func (st *store) progressRows(keys []ucKey) []wireProgress {
	rows := make([]wireProgress, 0, len(keys))
	for _, k := range keys {
		p := st.progress[k]
		u, c := st.users.Get(k.userID), st.courses.Get(k.courseID)
		rows = append(rows, wireProgress{OpenedAt: wt(p.opened), CompletedAt: wt(p.completed),
			TotalLessons: p.totalLessons, CompletedLessons: p.completedLessons,
			CourseID: c.id, CourseExternalID: c.externalID, CourseTitle: c.title,
			UserEmail: u.email, UserFirstName: u.firstName, UserLastName: u.lastName,
			UserID: u.id, UserExternalID: u.externalID, ProgressPercent: p.percent, Score: p.score, DueAt: wt(p.due)})
	}
	return rows
}

// CourseProgressCount counts the course-progress rows the feed holds for
// a completion status (CompletionAll, CompletionCompleted or
// CompletionNonCompleted), so that a test can compare an export with it.
func (s *Server) CourseProgressCount(status string) int {
	n := 0
	s.read(func(st *store, _ time.Time) { n = len(st.progressMatching(progressFilter{status: status})) })
	return n
}
