package scsrc

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"reflect"
	"strings"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/internal/dbwrite"
	"github.com/edapp-go/edapp/export/internal/jsonobj"
	"github.com/edapp-go/edapp/export/internal/sdkwalk"
	"github.com/edapp-go/edapp/safetyculture"
)

// SafetyCulture Training's kinds. A kind both services have writes the
// same table as EdApp's, through a row type that names SafetyCulture's
// fields as the table's columns (the columns only EdApp sends stay NULL);
// a kind only SafetyCulture has writes its record as sent. Each row's raw
// is the record as the service sent it.

// scRow keeps the SafetyCulture record a row was made from, for raw.
type scRow struct{ orig any }

// MarshalJSON is the record as the service sent it: a feed row's bytes as
// received (compacted when they hold a line break, which a line of JSONL
// cannot, and with each byte that is not UTF-8 as U+FFFD); any other
// record with every member the service sent, the fields the SDK knows and
// those it kept in the record's Extra.
func (r scRow) MarshalJSON() ([]byte, error) {
	if raw := rawOfRecord(r.orig); len(raw) > 0 {
		return raw, nil
	}
	b, err := json.Marshal(r.orig)
	if err != nil {
		return nil, err
	}
	return jsonobj.Splice(b, extraOfRecord(r.orig), func(string) bool { return false }), nil
}

// rawOfRecord is a feed row's bytes as received, made fit for a row.
func rawOfRecord(v any) []byte {
	rr, ok := v.(interface{ Raw() json.RawMessage })
	if !ok {
		return nil
	}
	raw := rr.Raw()
	if bytes.ContainsAny(raw, "\r\n") {
		var c bytes.Buffer
		if json.Compact(&c, raw) != nil {
			return nil
		}
		raw = c.Bytes()
	}
	return []byte(dbwrite.ValidUTF8(string(raw)))
}

// extraOfRecord is the Extra of a SafetyCulture record, every one of
// which has one; nil for a value without.
func extraOfRecord(v any) edapp.RawFields {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil
	}
	f := rv.FieldByName("Extra")
	if !f.IsValid() || f.Type() != reflect.TypeFor[edapp.RawFields]() {
		return nil
	}
	return f.Interface().(edapp.RawFields)
}

type scUserRow struct {
	ID             string     `json:"id"`
	Email          string     `json:"email"`
	FirstName      string     `json:"firstName"`
	LastName       string     `json:"lastName"`
	LastActiveDate edapp.Time `json:"lastActiveDate"`
	Active         *bool      `json:"active"`
	SeatType       string     `json:"seatType"`
	CreatedAt      edapp.Time `json:"createdAt"`
	scRow
}

type scGroupRow struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	scRow
}

type scMemberRow struct {
	GroupID string `json:"groupId"`
	UserID  string `json:"userId"`
	scRow
}

type scCourseRow struct {
	ID               string     `json:"id"`
	ExternalID       string     `json:"externalId"`
	Title            string     `json:"title"`
	Description      string     `json:"description"`
	Status           string     `json:"status"`
	Locale           string     `json:"locale"`
	ThumbnailURL     string     `json:"thumbnailUrl"`
	CreatedDateTime  edapp.Time `json:"createdDateTime"`
	ModifiedDateTime edapp.Time `json:"modifiedDateTime"`
	scRow
}

type scLessonRow struct {
	ID           string  `json:"id"`
	CourseID     string  `json:"courseId"`
	ExternalID   string  `json:"externalId"`
	Title        string  `json:"title"`
	Description  string  `json:"description"`
	Status       string  `json:"status"`
	MinimumScore float64 `json:"minimumScore"`
	scRow
}

type scCollectionRow struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description"`
	scRow
}

type scProgressRow struct {
	UserID              string     `json:"userId"`
	UserExternalID      string     `json:"userExternalId"`
	UserFirstName       string     `json:"userFirstName"`
	UserLastName        string     `json:"userLastName"`
	UserEmail           string     `json:"userEmail"`
	CourseID            string     `json:"courseId"`
	CourseExternalID    string     `json:"courseExternalId"`
	CourseTitle         string     `json:"courseTitle"`
	Opened              *bool      `json:"opened"` // nil: its time was sent but could not be read
	OpenedDateTime      edapp.Time `json:"openedDateTime"`
	Completed           *bool      `json:"completed"` // nil: its time was sent but could not be read
	CompletedDateTime   edapp.Time `json:"completedDateTime"`
	DueAt               edapp.Time `json:"dueAt"`
	LessonsTotal        int        `json:"lessonsTotal"`
	LessonsCompleted    int        `json:"lessonsCompleted"`
	PercentageCompleted float64    `json:"percentageCompleted"`
	Score               float64    `json:"score"`
	scRow
}

func userRowOf(u safetyculture.User) scUserRow {
	return scUserRow{u.ID, u.Email, u.FirstName, u.LastName, u.LastSeenAt, u.Active, u.SeatType, u.CreatedAt, scRow{u}}
}

func courseRowOf(c safetyculture.Course) scCourseRow {
	return scCourseRow{c.ID, c.ExternalID, c.Title, c.Description, c.Status, c.Locale, c.ThumbnailURL, c.CreatedDateTime, c.ModifiedDateTime, scRow{c}}
}

// progressRowOf is a feed row; opened and completed, which the feed does
// not send, are read from its times. A time sent but not read (kept in
// Extra) leaves its flag NULL: a zero time says nothing then.
func progressRowOf(p safetyculture.CourseProgress) scProgressRow {
	return scProgressRow{p.UserID, p.UserExternalID, p.UserFirstName, p.UserLastName, p.UserEmail, p.CourseID, p.CourseExternalID,
		p.CourseTitle, sentFlag(p.OpenedAt, p.Extra, "opened_at", "openedAt"), p.OpenedAt,
		sentFlag(p.CompletedAt, p.Extra, "completed_at", "completedAt"), p.CompletedAt, p.DueAt, p.TotalLessons,
		p.CompletedLessons, p.ProgressPercent, p.Score, scRow{p}}
}

// sentFlag is whether t is set; nil when t is zero because the value sent
// under one of names could not be read (the SDK kept it in extra).
func sentFlag(t edapp.Time, extra edapp.RawFields, names ...string) *bool {
	if t.IsZero() {
		for _, n := range names {
			if v, ok := extra[n]; ok && string(bytes.TrimSpace(v)) != "null" {
				return nil
			}
		}
	}
	set := !t.IsZero()
	return &set
}

// mapSeq is seq with f applied to each item.
func mapSeq[T, U any](seq iter.Seq2[T, error], f func(T) U) iter.Seq2[U, error] {
	return func(yield func(U, error) bool) {
		for v, err := range seq {
			var u U
			if err == nil {
				u = f(v)
			}
			if !yield(u, err) {
				return
			}
		}
	}
}

// jsonFields are the JSON names of T's exported fields, in order: a
// SafetyCulture kind's columns.
func jsonFields[T any]() []string {
	var out []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[T]()) {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); f.IsExported() && !f.Anonymous && name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// scFeed is a kind read from one of SafetyCulture's feeds, mirrored.
func scFeed[T, U any](name string, feed func(ctx context.Context, sc *safetyculture.Client, o []edapp.RequestOption) iter.Seq2[T, error], row func(T) U) kind {
	return kind{Kind: export.Kind{Name: name, Columns: jsonFields[U]()}, fetch: func(ctx context.Context, src *Source, f *export.Fetch) error {
		return sdkwalk.List(ctx, f, func(o []edapp.RequestOption) sdkwalk.Seq[U] { return mapSeq(feed(ctx, src.c, o), row) }, nil)
	}}
}

func same[T any](v T) T { return v }

// scKinds lists SafetyCulture's kinds, in the order the export runs them.
var scKinds = []kind{
	scUsersKind,
	scFeed("groups", func(ctx context.Context, sc *safetyculture.Client, o []edapp.RequestOption) iter.Seq2[safetyculture.Group, error] {
		return sc.Feeds.AllGroups(ctx, o...)
	}, func(g safetyculture.Group) scGroupRow { return scGroupRow{g.ID, g.Name, scRow{g}} }),
	scFeed("group_members", func(ctx context.Context, sc *safetyculture.Client, o []edapp.RequestOption) iter.Seq2[safetyculture.GroupUser, error] {
		return sc.Feeds.AllGroupUsers(ctx, o...)
	}, func(m safetyculture.GroupUser) scMemberRow { return scMemberRow{m.GroupID, m.UserID, scRow{m}} }),
	scFeed("sites", func(ctx context.Context, sc *safetyculture.Client, o []edapp.RequestOption) iter.Seq2[safetyculture.Site, error] {
		return sc.Feeds.AllSites(ctx, o...)
	}, same[safetyculture.Site]),
	scFeed("site_members", func(ctx context.Context, sc *safetyculture.Client, o []edapp.RequestOption) iter.Seq2[safetyculture.SiteMember, error] {
		return sc.Feeds.AllSiteMembers(ctx, o...)
	}, same[safetyculture.SiteMember]),
	scCoursesKind,
	scLessonsKind,
	scLearningPathsKind,
	scCourseStatisticsKind,
	scLessonStatisticsKind,
	scSlideStatisticsKind,
	scSurveyQuestionsKind,
	scRapidRefreshKind,
	scProgressEventsKind,
	scSurveyAnswersKind,
	scUserLessonProgressKind,
	scUserProgressEventsKind,
	scUserSlideStatisticsKind,
	scCollectionsKind,
	scCollectionCoursesKind,
	scAttemptsKind,
	scCourseProgressKind,
}
