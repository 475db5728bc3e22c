package sctest

import (
	"cmp"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

func (st *store) wireCourse(c *course) wireCourse {
	return wireCourse{ID: c.id, ExternalID: c.externalID, Title: c.title, Description: c.description,
		Status: c.status, Locale: c.locale, IsMandatory: c.mandatory, DueBy: wtp(c.dueBy), Duration: c.duration,
		ThumbnailURL: c.thumbnailURL, CreatedDatetime: wtp(c.created), ModifiedDatetime: wtp(c.modified),
		IsPublished: c.published, LessonCount: len(c.lessonIDs), PublishedVersionNumber: c.version}
}

func (st *store) wireLesson(l *lesson) wireLesson {
	return wireLesson{ID: l.id, CourseID: l.courseID, ExternalID: l.externalID, Title: l.title,
		Description: l.description, Status: l.status, MinimumScore: l.minimumScore}
}

func notFound(w http.ResponseWriter, what, id string) {
	writeError(w, http.StatusNotFound, codeNotFound, what+" "+id+" not found")
}

// listCourses answers GET /training/courses/v1, filtered by courseIds
// and by searchTerm (in the title, without regard to case).
func (s api) listCourses(w http.ResponseWriter, r *http.Request) {
	page, size, ok := paging(w, r)
	if !ok {
		return
	}
	ids, term := listParam(r, "courseIds"), strings.ToLower(r.URL.Query().Get("searchTerm"))
	var items []wireCourse
	s.read(func(st *store, _ time.Time) {
		for _, c := range st.courses.All() {
			if (len(ids) == 0 || slices.Contains(ids, c.id)) && strings.Contains(strings.ToLower(c.title), term) {
				items = append(items, st.wireCourse(c))
			}
		}
	})
	writePage(w, items, page, size)
}

// courseLessons answers GET /training/courses/v1/{courseId}/lessons: every
// lesson in one answer, {"lessons": [...]}.
func (s api) courseLessons(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("courseId")
	var items []wireLesson
	found := false
	s.read(func(st *store, _ time.Time) {
		c := st.courses.Get(id)
		if found = c != nil; found {
			items = []wireLesson{}
			for _, lid := range c.lessonIDs {
				items = append(items, st.wireLesson(st.lessons.Get(lid)))
			}
		}
	})
	if !found {
		notFound(w, "course", id)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"lessons": items})
}

// getOne answers one record found by the path parameter param, or 404.
func getOne[T any](s *Server, w http.ResponseWriter, r *http.Request, param, what string, find func(st *store, id string) (T, bool)) {
	id := r.PathValue(param)
	var out T
	found := false
	s.read(func(st *store, _ time.Time) { out, found = find(st, id) })
	if !found {
		notFound(w, what, id)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// listAll answers a page of the records rows builds.
func listAll[T any](s *Server, w http.ResponseWriter, r *http.Request, rows func(st *store) []T) {
	page, size, ok := paging(w, r)
	if !ok {
		return
	}
	var items []T
	s.read(func(st *store, _ time.Time) { items = rows(st) })
	writePage(w, items, page, size)
}

// each maps f over a table's records.
func each[R, T any](t *fakeserver.Table[R], f func(*R) T) []T {
	out := make([]T, 0, t.Len())
	for _, v := range t.All() {
		out = append(out, f(v))
	}
	return out
}

// getLesson answers GET /training/lessons/v1/{id} with the lesson itself.
func (s api) getLesson(w http.ResponseWriter, r *http.Request) {
	getOne(s.server, w, r, "id", "lesson", func(st *store, id string) (wireLesson, bool) {
		l := st.lessons.Get(id)
		if l == nil {
			return wireLesson{}, false
		}
		return st.wireLesson(l), true
	})
}

func (s api) listCollections(w http.ResponseWriter, r *http.Request) {
	listAll(s.server, w, r, func(st *store) []wireCollection {
		return each(&st.collections, func(c *collection) wireCollection {
			return wireCollection{ID: c.id, Title: c.title, Description: c.description, CourseCount: len(c.courseIDs)}
		})
	})
}

func (s api) collectionCourses(w http.ResponseWriter, r *http.Request) {
	page, size, ok := paging(w, r)
	if !ok {
		return
	}
	id := r.PathValue("courseCollectionId")
	var items []wireCourse
	found := false
	s.read(func(st *store, _ time.Time) {
		col := st.collections.Get(id)
		if found = col != nil; found {
			for _, cid := range col.courseIDs {
				items = append(items, st.wireCourse(st.courses.Get(cid)))
			}
		}
	})
	if !found {
		notFound(w, "collection", id)
		return
	}
	writePage(w, items, page, size)
}

func (st *store) wirePath(p *path) wirePath {
	out := wirePath{ID: p.id, Title: p.title, Description: p.description, IsPublished: p.published, Courses: []wireCourseRef{}}
	for _, id := range p.courseIDs {
		c := st.courses.Get(id)
		out.Courses = append(out.Courses, wireCourseRef{ID: c.id, ExternalID: c.externalID})
	}
	return out
}

func (s api) listPaths(w http.ResponseWriter, r *http.Request) {
	listAll(s.server, w, r, func(st *store) []wirePath { return each(&st.paths, st.wirePath) })
}

func (s api) getPath(w http.ResponseWriter, r *http.Request) {
	getOne(s.server, w, r, "pathId", "path", func(st *store, id string) (wirePath, bool) {
		p := st.paths.Get(id)
		if p == nil {
			return wirePath{}, false
		}
		return st.wirePath(p), true
	})
}

func (rr *rapidRefresh) wire() wireRapidRefresh {
	return wireRapidRefresh{ID: rr.id, Title: rr.title, CourseID: rr.courseID, IsPublished: rr.published}
}

func (s api) listRapidRefresh(w http.ResponseWriter, r *http.Request) {
	listAll(s.server, w, r, func(st *store) []wireRapidRefresh { return each(&st.refreshes, (*rapidRefresh).wire) })
}

func (s api) getRapidRefresh(w http.ResponseWriter, r *http.Request) {
	getOne(s.server, w, r, "id", "rapid refresh", func(st *store, id string) (wireRapidRefresh, bool) {
		rr := st.refreshes.Get(id)
		if rr == nil {
			return wireRapidRefresh{}, false
		}
		return rr.wire(), true
	})
}

func (s api) listLeaderboards(w http.ResponseWriter, r *http.Request) {
	listAll(s.server, w, r, func(st *store) []wireLeaderboard {
		return each(&st.boards, func(b *leaderboard) wireLeaderboard {
			return wireLeaderboard{ID: b.id, Name: b.name, StartDate: wtp(b.start), EndDate: wtp(b.end), LearnerAccess: b.learnerAccess}
		})
	})
}

// rankings answers GET .../rankings?leaderboardId=: every participant in
// one answer, highest score first.
func (s api) rankings(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("leaderboardId")
	var out *wireRankings
	s.read(func(st *store, _ time.Time) {
		b := st.boards.Get(id)
		if b == nil {
			return
		}
		out = &wireRankings{LeaderboardID: b.id, LeaderboardName: b.name, Rankings: []wireRanking{}}
		ranked := slices.Clone(b.rankings)
		slices.SortStableFunc(ranked, func(a, b Ranking) int { return cmp.Compare(b.TotalScore, a.TotalScore) })
		for i, rk := range ranked {
			u := st.users.Get(rk.UserID)
			out.Rankings = append(out.Rankings, wireRanking{Rank: i + 1, ParticipantID: u.id,
				ParticipantName: strings.TrimSpace(u.firstName + " " + u.lastName), TotalScore: rk.TotalScore, IsNotAttempted: rk.NotAttempted})
		}
	})
	if out == nil {
		notFound(w, "leaderboard", id)
		return
	}
	writeJSON(w, http.StatusOK, out)
}
