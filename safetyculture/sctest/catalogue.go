package sctest

import (
	"cmp"
	"net/http"
	"slices"
	"strings"
	"time"
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
func (s *Server) listCourses(w http.ResponseWriter, r *http.Request) {
	page, size, ok := paging(w, r)
	if !ok {
		return
	}
	ids, term := listParam(r, "courseIds"), strings.ToLower(r.URL.Query().Get("searchTerm"))
	var items []wireCourse
	s.read(func(st *store, _ time.Time) {
		for _, c := range st.courses.all() {
			if (len(ids) == 0 || slices.Contains(ids, c.id)) && strings.Contains(strings.ToLower(c.title), term) {
				items = append(items, st.wireCourse(c))
			}
		}
	})
	writePage(w, items, page, size)
}

// courseLessons answers GET /training/courses/v1/{courseId}/lessons: every
// lesson in one answer, {"lessons": [...]}.
func (s *Server) courseLessons(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("courseId")
	var items []wireLesson
	found := false
	s.read(func(st *store, _ time.Time) {
		c := st.courses.get(id)
		if found = c != nil; found {
			items = []wireLesson{}
			for _, lid := range c.lessonIDs {
				items = append(items, st.wireLesson(st.lessons.get(lid)))
			}
		}
	})
	if !found {
		notFound(w, "course", id)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"lessons": items})
}

// getLesson answers GET /training/lessons/v1/{id} with the lesson itself.
func (s *Server) getLesson(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var out *wireLesson
	s.read(func(st *store, _ time.Time) {
		if l := st.lessons.get(id); l != nil {
			wl := st.wireLesson(l)
			out = &wl
		}
	})
	if out == nil {
		notFound(w, "lesson", id)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) listCollections(w http.ResponseWriter, r *http.Request) {
	page, size, ok := paging(w, r)
	if !ok {
		return
	}
	var items []wireCollection
	s.read(func(st *store, _ time.Time) {
		for _, c := range st.collections.all() {
			items = append(items, wireCollection{ID: c.id, Title: c.title, Description: c.description, CourseCount: len(c.courseIDs)})
		}
	})
	writePage(w, items, page, size)
}

func (s *Server) collectionCourses(w http.ResponseWriter, r *http.Request) {
	page, size, ok := paging(w, r)
	if !ok {
		return
	}
	id := r.PathValue("courseCollectionId")
	var items []wireCourse
	found := false
	s.read(func(st *store, _ time.Time) {
		col := st.collections.get(id)
		if found = col != nil; found {
			for _, cid := range col.courseIDs {
				items = append(items, st.wireCourse(st.courses.get(cid)))
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
		c := st.courses.get(id)
		out.Courses = append(out.Courses, wireCourseRef{ID: c.id, ExternalID: c.externalID})
	}
	return out
}

func (s *Server) listPaths(w http.ResponseWriter, r *http.Request) {
	page, size, ok := paging(w, r)
	if !ok {
		return
	}
	var items []wirePath
	s.read(func(st *store, _ time.Time) {
		for _, p := range st.paths.all() {
			items = append(items, st.wirePath(p))
		}
	})
	writePage(w, items, page, size)
}

func (s *Server) getPath(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("pathId")
	var out *wirePath
	s.read(func(st *store, _ time.Time) {
		if p := st.paths.get(id); p != nil {
			wp := st.wirePath(p)
			out = &wp
		}
	})
	if out == nil {
		notFound(w, "path", id)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) listRapidRefresh(w http.ResponseWriter, r *http.Request) {
	page, size, ok := paging(w, r)
	if !ok {
		return
	}
	var items []wireRapidRefresh
	s.read(func(st *store, _ time.Time) {
		for _, rr := range st.refreshes.all() {
			items = append(items, wireRapidRefresh{ID: rr.id, Title: rr.title, CourseID: rr.courseID, IsPublished: rr.published})
		}
	})
	writePage(w, items, page, size)
}

func (s *Server) getRapidRefresh(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var out *wireRapidRefresh
	s.read(func(st *store, _ time.Time) {
		if rr := st.refreshes.get(id); rr != nil {
			out = &wireRapidRefresh{ID: rr.id, Title: rr.title, CourseID: rr.courseID, IsPublished: rr.published}
		}
	})
	if out == nil {
		notFound(w, "rapid refresh", id)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) listLeaderboards(w http.ResponseWriter, r *http.Request) {
	page, size, ok := paging(w, r)
	if !ok {
		return
	}
	var items []wireLeaderboard
	s.read(func(st *store, _ time.Time) {
		for _, b := range st.boards.all() {
			items = append(items, wireLeaderboard{ID: b.id, Name: b.name, StartDate: wtp(b.start), EndDate: wtp(b.end), LearnerAccess: b.learnerAccess})
		}
	})
	writePage(w, items, page, size)
}

// rankings answers GET .../rankings?leaderboardId=: every participant in
// one answer, highest score first.
func (s *Server) rankings(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("leaderboardId")
	var out *wireRankings
	s.read(func(st *store, _ time.Time) {
		b := st.boards.get(id)
		if b == nil {
			return
		}
		out = &wireRankings{LeaderboardID: b.id, LeaderboardName: b.name, Rankings: []wireRanking{}}
		ranked := slices.Clone(b.rankings)
		slices.SortStableFunc(ranked, func(a, b Ranking) int { return cmp.Compare(b.TotalScore, a.TotalScore) })
		for i, rk := range ranked {
			u := st.users.get(rk.UserID)
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
