package sctest

import (
	"strconv"
	"time"
)

// content adds what SafetyCulture holds of the new course that EdApp had
// no analogue for, so that every read has rows: a learning path through
// it and the first migrated course, a survey question on its last lesson
// that each person who completed it answered, a rapid refresh about it
// that they answered, and a slide per lesson with its statistics, overall
// and per person who completed it. The ids follow from the seed, so the
// same account gives the same content.
func (m *migrator) content(courseID string, lessonIDs []string, tick func() time.Time) {
	paths := []string{courseID}
	if len(m.snap.Courses) > 0 && m.out.Courses[m.snap.Courses[0].ID] != "" {
		paths = append([]string{m.out.Courses[m.snap.Courses[0].ID]}, paths...)
	}
	pid := uuidOf(m.key(32, "path"))
	m.st.paths.add(pid, &path{id: pid, title: "After the Move", description: "The course before the move, then the new one.", published: true, courseIDs: paths})
	m.out.After.PathID = pid

	last := lessonIDs[len(lessonIDs)-1]
	q := &surveyQuestion{id: uuidOf(m.key(32, "question")), courseID: courseID, lessonID: last, slideID: m.slideID(last),
		qtype: "rating", content: "<p>How useful was this course?</p>"}
	for i, text := range []string{"Not useful", "Useful", "Very useful"} {
		q.answers = append(q.answers, answerDef{id: uuidOf(m.key(32, "answer", strconv.Itoa(i))), content: text})
	}
	m.st.analytics.questions = append(m.st.analytics.questions, q)
	m.out.After.SurveyQuestionID = q.id

	rid := uuidOf(m.key(32, "rapid-refresh"))
	m.st.refreshes.add(rid, &rapidRefresh{id: rid, title: "Working Safely: a refresher", courseID: courseID, published: true})
	m.out.After.RapidRefreshID = rid

	for _, lid := range lessonIDs {
		m.addRow(ReportSlideStatistics, map[string]any{"slideId": m.slideID(lid), "lessonId": lid, "courseId": courseID,
			"views": len(m.out.After.Completed) + len(m.out.After.InProgress)})
	}
	for _, uid := range m.out.After.Completed {
		m.answer(q, rid, uid, tick())
		for _, lid := range lessonIDs {
			m.addRow(ReportUserSlideStatistics, map[string]any{"userId": uid, "slideId": m.slideID(lid), "lessonId": lid,
				"courseId": courseID, "viewed": true})
		}
	}
}

// slideID is the id of the one slide of a lesson of the new course.
func (m *migrator) slideID(lessonID string) string { return uuidOf(m.key(32, "slide", lessonID)) }

// answer records a person's answers to the survey question and the rapid
// refresh.
func (m *migrator) answer(q *surveyQuestion, refreshID, userID string, at time.Time) {
	choice := q.answers[int(m.score("survey", userID))%len(q.answers)]
	m.st.analytics.answers = append(m.st.analytics.answers, &surveyAnswer{id: uuidOf(m.key(32, "survey-answer", userID)),
		questionID: q.id, userID: userID, answerDefID: choice.id, content: choice.content, at: at, recorded: m.now})
	m.addRow(ReportRapidRefreshAnswers, map[string]any{"id": uuidOf(m.key(32, "rapid-refresh-answer", userID)), "userId": userID,
		"rapidRefreshId": refreshID, "courseId": q.courseID, "correct": m.score("refresh", userID) >= 70,
		"answeredDateTime": at.UTC().Format(time.RFC3339)})
}

func (m *migrator) addRow(report string, fields map[string]any) {
	if m.st.analytics.rows == nil {
		m.st.analytics.rows = map[string][]genericRow{}
	}
	m.st.analytics.rows[report] = append(m.st.analytics.rows[report], genericRow{fields: fields, recorded: m.now})
}
