package sctest

import (
	"cmp"
	"slices"
	"strings"
)

func (st *store) wireCourse(c *course) wireCourse {
	return wireCourse{ID: c.id, ExternalID: c.externalID, Title: c.title, Description: c.description,
		Status: c.status, Locale: c.locale, IsMandatory: c.mandatory, DueBy: wtp(c.dueBy), Duration: c.duration,
		ThumbnailURL: c.thumbnailURL, CreatedDatetime: wtp(c.created), ModifiedDatetime: wtp(c.modified),
		IsPublished: c.published, LessonCount: len(c.lessonIDs), PublishedVersionNumber: 1}
}

func wireLessonOf(l *lesson) wireLesson {
	return wireLesson{ID: l.id, CourseID: l.courseID, ExternalID: l.externalID, Title: l.title,
		Description: l.description, Status: l.status, MinimumScore: l.minimumScore}
}

func (st *store) wirePath(p *path) wirePath {
	out := wirePath{ID: p.id, Title: p.title, IsPublished: p.published, Courses: []wireCourseRef{}}
	for _, id := range p.courseIDs {
		c := st.courses.Get(id)
		out.Courses = append(out.Courses, wireCourseRef{ID: c.id, ExternalID: c.externalID})
	}
	return out
}

func wireRapidRefreshOf(rr *rapidRefresh) wireRapidRefresh {
	return wireRapidRefresh{ID: rr.id, Title: rr.title, CourseID: rr.courseID, IsPublished: rr.published}
}

// each maps f over records.
func each[R, T any](records []*R, f func(*R) T) []T {
	out := make([]T, 0, len(records))
	for _, v := range records {
		out = append(out, f(v))
	}
	return out
}

// listCourses answers GET /training/courses/v1, filtered by courseIds
// and by searchTerm (in the title, without regard to case).
func listCourses(c *call) (any, error) {
	ids, term := listParam(c, "courseIds"), strings.ToLower(c.URL.Query().Get("searchTerm"))
	var items []wireCourse
	for _, co := range c.st.courses.All() {
		if (len(ids) == 0 || slices.Contains(ids, co.id)) && strings.Contains(strings.ToLower(co.title), term) {
			items = append(items, c.st.wireCourse(co))
		}
	}
	return page(c, items)
}

// courseLessons answers GET /training/courses/v1/{courseId}/lessons: every
// lesson in one answer, {"lessons": [...]}.
func courseLessons(c *call) (any, error) {
	co, err := find(c, c.st.courses.Get, "courseId", "course")
	if err != nil {
		return nil, err
	}
	return map[string]any{"lessons": each(mapIDs(co.lessonIDs, c.st.lessons.Get), wireLessonOf)}, nil
}

// mapIDs looks ids up with get.
func mapIDs[T any](ids []string, get func(string) *T) []*T {
	out := make([]*T, 0, len(ids))
	for _, id := range ids {
		out = append(out, get(id))
	}
	return out
}

func getLesson(c *call) (any, error) {
	l, err := find(c, c.st.lessons.Get, "id", "lesson")
	if err != nil {
		return nil, err
	}
	return wireLessonOf(l), nil
}

func listCollections(c *call) (any, error) {
	return page(c, each(c.st.collections.All(), func(col *collection) wireCollection {
		return wireCollection{ID: col.id, Title: col.title, Description: col.description, CourseCount: len(col.courseIDs)}
	}))
}

func collectionCourses(c *call) (any, error) {
	col, err := find(c, c.st.collections.Get, "courseCollectionId", "collection")
	if err != nil {
		return nil, err
	}
	return page(c, each(mapIDs(col.courseIDs, c.st.courses.Get), c.st.wireCourse))
}

func listPaths(c *call) (any, error) { return page(c, each(c.st.paths.All(), c.st.wirePath)) }

func getPath(c *call) (any, error) {
	p, err := find(c, c.st.paths.Get, "pathId", "path")
	if err != nil {
		return nil, err
	}
	return c.st.wirePath(p), nil
}

func listRapidRefresh(c *call) (any, error) {
	return page(c, each(c.st.refreshes.All(), wireRapidRefreshOf))
}

func getRapidRefresh(c *call) (any, error) {
	rr, err := find(c, c.st.refreshes.Get, "id", "rapid refresh")
	if err != nil {
		return nil, err
	}
	return wireRapidRefreshOf(rr), nil
}

func listLeaderboards(c *call) (any, error) {
	return page(c, each(c.st.boards.All(), func(b *leaderboard) wireLeaderboard {
		return wireLeaderboard{ID: b.id, Name: b.name, StartDate: wtp(b.start), EndDate: wtp(b.end), LearnerAccess: "LEARNER_ACCESS_ALL"}
	}))
}

// rankings answers GET .../rankings?leaderboardId=: every participant in
// one answer, highest score first.
func rankings(c *call) (any, error) {
	id := c.URL.Query().Get("leaderboardId")
	b := c.st.boards.Get(id)
	if b == nil {
		return nil, notFound("leaderboard", id)
	}
	out := wireRankings{LeaderboardID: b.id, LeaderboardName: b.name, Rankings: []wireRanking{}}
	ranked := slices.Clone(b.rankings)
	slices.SortStableFunc(ranked, func(a, b Ranking) int { return cmp.Compare(b.TotalScore, a.TotalScore) })
	for i, rk := range ranked {
		u := c.st.users.Get(rk.UserID)
		out.Rankings = append(out.Rankings, wireRanking{Rank: i + 1, ParticipantID: u.id,
			ParticipantName: strings.TrimSpace(u.firstName + " " + u.lastName), TotalScore: rk.TotalScore, IsNotAttempted: rk.NotAttempted})
	}
	return out, nil
}
