package sctest

import (
	"math"
	"net/http"
	"time"
)

// The analytics reads' parameters and fields are inferred from the EdApp
// reads they mirror (nothing public shows them): camelCase, page and
// pageSize, {totalCount, items}, filters courseId, lessonId and userId,
// and a time range where the EdApp read has one.

type analyticsFilter struct {
	courseID, lessonID, userID string
	from, to                   time.Time
}

// readAnalyticsFilter reads the id filters (userId also from the path)
// and, when fromName is not "", the time range (RFC 3339, inclusive).
func readAnalyticsFilter(w http.ResponseWriter, r *http.Request, fromName, toName string) (analyticsFilter, bool) {
	q := r.URL.Query()
	f := analyticsFilter{courseID: q.Get("courseId"), lessonID: q.Get("lessonId"), userID: q.Get("userId")}
	if id := r.PathValue("userId"); id != "" {
		f.userID = id
	}
	for _, b := range []struct {
		name string
		t    *time.Time
	}{{fromName, &f.from}, {toName, &f.to}} {
		raw := q.Get(b.name)
		if b.name == "" || raw == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, raw)
		if err != nil {
			writeError(w, http.StatusBadRequest, codeInvalidArgument, b.name+" must be an RFC 3339 time")
			return f, false
		}
		*b.t = t
	}
	return f, true
}

func (f analyticsFilter) match(userID, courseID, lessonID string, at time.Time) bool {
	switch {
	case f.userID != "" && f.userID != userID, f.courseID != "" && f.courseID != courseID,
		f.lessonID != "" && f.lessonID != lessonID:
		return false
	case !f.from.IsZero() && at.Before(f.from), !f.to.IsZero() && at.After(f.to):
		return false
	}
	return true
}

// visible reports whether a row recorded at recorded is published by now.
func (s analyticsAPI) visible(recorded, now time.Time) bool {
	return !now.Before(recorded.Add(s.cfg.lag))
}

// analyticsRead answers one analytics read whose rows are built whole:
// paging, the filter, then the rows, under the read lock.
func (s analyticsAPI) analyticsRead(w http.ResponseWriter, r *http.Request, fromName, toName string,
	rows func(st *store, f analyticsFilter, now time.Time) []any) {
	s.analyticsPaged(w, r, fromName, toName, func(st *store, f analyticsFilter, now time.Time, p *pageOf) {
		for _, row := range rows(st, f, now) {
			p.add(func() any { return row })
		}
	})
}

// pageOf gathers one page of a read's matching rows: every match is
// counted, and only the page's are built, so that a walk of many rows
// costs each page its own.
type pageOf struct {
	start, size, total int
	items              []any
}

func (p *pageOf) add(build func() any) {
	if p.total >= p.start && p.total < p.start+p.size {
		p.items = append(p.items, build())
	}
	p.total++
}

// analyticsPaged is analyticsRead for the reads with many rows: rows
// adds each match to p.
func (s analyticsAPI) analyticsPaged(w http.ResponseWriter, r *http.Request, fromName, toName string,
	rows func(st *store, f analyticsFilter, now time.Time, p *pageOf)) {
	page, size, ok := paging(w, r)
	if !ok {
		return
	}
	f, ok := readAnalyticsFilter(w, r, fromName, toName)
	if !ok {
		return
	}
	p := &pageOf{start: (page - 1) * size, size: size, items: []any{}}
	s.read(func(st *store, now time.Time) { rows(st, f, now, p) })
	writeJSON(w, http.StatusOK, wireList[any]{TotalCount: p.total, Items: p.items})
}

type wireAttempt struct {
	ID                string  `json:"id"`
	UserID            string  `json:"userId"`
	UserExternalID    string  `json:"userExternalId"`
	CourseID          string  `json:"courseId"`
	CourseExternalID  string  `json:"courseExternalId"`
	LessonID          string  `json:"lessonId"`
	LessonExternalID  string  `json:"lessonExternalId"`
	StartedDateTime   *string `json:"startedDateTime"`
	CompletedDateTime *string `json:"completedDateTime"`
	Score             float64 `json:"score"`
	Success           bool    `json:"success"`
	EarnedStars       int     `json:"earnedStars"`
}

// lessonAttempts answers .../lessons/attempts; startDateTime and
// endDateTime bound the start of an attempt.
func (s analyticsAPI) lessonAttempts(w http.ResponseWriter, r *http.Request) {
	s.analyticsPaged(w, r, "startDateTime", "endDateTime", func(st *store, f analyticsFilter, now time.Time, p *pageOf) {
		for _, a := range st.analytics.attempts {
			if s.visible(a.recorded, now) && f.match(a.userID, a.courseID, a.lessonID, a.started) {
				p.add(func() any { return st.wireAttempt(a) })
			}
		}
	})
}

func (st *store) wireAttempt(a *attempt) wireAttempt {
	u, c, l := st.users.Get(a.userID), st.courses.Get(a.courseID), st.lessons.Get(a.lessonID)
	return wireAttempt{ID: a.id, UserID: u.id, UserExternalID: u.externalID, CourseID: c.id,
		CourseExternalID: c.externalID, LessonID: l.id, LessonExternalID: l.externalID,
		StartedDateTime: wtp(a.started), CompletedDateTime: wtp(a.completed), Score: a.score,
		Success: a.success, EarnedStars: int(math.Round(a.score / 100 * 3))}
}

type wireProgressEvent struct {
	UserID           string   `json:"userId"`
	UserEmail        string   `json:"userEmail"`
	UserFirstName    string   `json:"userFirstName"`
	UserLastName     string   `json:"userLastName"`
	CourseID         string   `json:"courseId"`
	CourseTitle      string   `json:"courseTitle"`
	CourseExternalID string   `json:"courseExternalId"`
	LessonID         string   `json:"lessonId"`
	LessonTitle      string   `json:"lessonTitle"`
	LessonExternalID string   `json:"lessonExternalId"`
	EventName        string   `json:"eventName"`
	EventDateTime    *string  `json:"eventDateTime"`
	LessonScore      *float64 `json:"lessonScore"`
}

// progressEvents answers .../lessons/progress/events and the per-user
// read; minEventDateTime and maxEventDateTime bound the event's time.
func (s analyticsAPI) progressEvents(w http.ResponseWriter, r *http.Request) {
	s.analyticsPaged(w, r, "minEventDateTime", "maxEventDateTime", func(st *store, f analyticsFilter, now time.Time, p *pageOf) {
		for _, e := range st.analytics.events {
			if s.visible(e.recorded, now) && f.match(e.userID, e.courseID, e.lessonID, e.at) {
				p.add(func() any { return st.wireEvent(e) })
			}
		}
	})
}

func (st *store) wireEvent(e *progressEvent) wireProgressEvent {
	u, c, l := st.users.Get(e.userID), st.courses.Get(e.courseID), st.lessons.Get(e.lessonID)
	we := wireProgressEvent{UserID: u.id, UserEmail: u.email, UserFirstName: u.firstName, UserLastName: u.lastName,
		CourseID: c.id, CourseTitle: c.title, CourseExternalID: c.externalID, LessonID: l.id, LessonTitle: l.title,
		LessonExternalID: l.externalID, EventName: e.name, EventDateTime: wtp(e.at)}
	if e.hasScore {
		score := e.score
		we.LessonScore = &score
	}
	return we
}

type wireUserLessonProgress struct {
	UserID            string   `json:"userId"`
	CourseID          string   `json:"courseId"`
	LessonID          string   `json:"lessonId"`
	LessonTitle       string   `json:"lessonTitle"`
	Opened            bool     `json:"opened"`
	OpenedDateTime    *string  `json:"openedDateTime"`
	Completed         bool     `json:"completed"`
	CompletedDateTime *string  `json:"completedDateTime"`
	Score             *float64 `json:"score"`
	Attempts          int      `json:"attempts"`
}

// userLessonProgress answers .../users/{userId}/lessons/progress.
func (s analyticsAPI) userLessonProgress(w http.ResponseWriter, r *http.Request) {
	s.analyticsRead(w, r, "", "", func(st *store, f analyticsFilter, now time.Time) []any {
		var out []any
		for _, k := range st.analytics.lpKeys {
			lp := st.analytics.lessonProgress[k]
			if !s.visible(lp.recorded, now) || !f.match(k.userID, lp.courseID, k.lessonID, time.Time{}) {
				continue
			}
			wp := wireUserLessonProgress{UserID: k.userID, CourseID: lp.courseID, LessonID: k.lessonID,
				LessonTitle: st.lessons.Get(k.lessonID).title, Opened: !lp.opened.IsZero(), OpenedDateTime: wtp(lp.opened),
				Completed: !lp.completed.IsZero(), CompletedDateTime: wtp(lp.completed), Attempts: lp.attempts}
			if lp.hasScore {
				score := lp.score
				wp.Score = &score
			}
			out = append(out, wp)
		}
		return out
	})
}
