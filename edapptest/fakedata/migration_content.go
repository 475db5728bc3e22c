package fakedata

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"

	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// content adds what SafetyCulture holds of the new course that EdApp had
// no analogue for, so that every read has rows: a learning path through
// it and the first migrated course, a survey question on its last lesson
// that each person who completed it answered, a rapid refresh about it
// that they answered, and a slide per lesson with its statistics, overall
// and per person who completed it. The same account gives the same
// content.
func (m *migrator) content(courseID string, lessonIDs []string, tick func() time.Time) error {
	paths := []string{courseID}
	if len(m.snap.Courses) > 0 && m.out.Courses[m.snap.Courses[0].ID] != "" {
		paths = append([]string{m.out.Courses[m.snap.Courses[0].ID]}, paths...)
	}
	var err error
	if m.out.After.PathID, err = m.sc.AddPath("After the Move", true, paths); err != nil {
		return err
	}
	last := lessonIDs[len(lessonIDs)-1]
	q, answers, err := m.sc.AddSurveyQuestion(sctest.SurveyQuestionSpec{CourseID: courseID, LessonID: last,
		SlideID: m.slideID(last), Type: "rating", Content: "<p>How useful was this course?</p>",
		Answers: []string{"Not useful", "Useful", "Very useful"}})
	if err != nil {
		return err
	}
	m.out.After.SurveyQuestionID = q
	if m.out.After.RapidRefreshID, err = m.sc.AddRapidRefresh("Working Safely: a refresher", courseID, true); err != nil {
		return err
	}
	var errs []error
	for _, lid := range lessonIDs {
		errs = append(errs, m.sc.AddAnalyticsRow(sctest.ReportSlideStatistics, map[string]any{"slideId": m.slideID(lid),
			"lessonId": lid, "courseId": courseID, "views": len(m.out.After.Completed) + len(m.out.After.InProgress)}))
	}
	texts := []string{"Not useful", "Useful", "Very useful"}
	for _, uid := range m.out.After.Completed {
		at := tick()
		i := int(m.score("survey", uid)) % len(answers)
		_, err := m.sc.AddSurveyAnswer(sctest.SurveyAnswerSpec{QuestionID: q, UserID: uid, AnswerID: answers[i], Content: texts[i], At: at})
		errs = append(errs, err, m.sc.AddAnalyticsRow(sctest.ReportRapidRefreshAnswers, map[string]any{
			"id": uuidOf(m.key(32, "rapid-refresh-answer", uid)), "userId": uid, "rapidRefreshId": m.out.After.RapidRefreshID,
			"courseId": courseID, "correct": m.score("refresh", uid) >= 70, "answeredDateTime": at.UTC().Format(time.RFC3339)}))
		for _, lid := range lessonIDs {
			errs = append(errs, m.sc.AddAnalyticsRow(sctest.ReportUserSlideStatistics, map[string]any{"userId": uid,
				"slideId": m.slideID(lid), "lessonId": lid, "courseId": courseID, "viewed": true}))
		}
	}
	return errors.Join(errs...)
}

// slideID is the id of the one slide of a lesson of the new course.
func (m *migrator) slideID(lessonID string) string { return uuidOf(m.key(32, "slide", lessonID)) }

// uuidOf formats 32 hex digits as a UUID.
func uuidOf(h string) string {
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// derivedHex returns n hex digits derived from parts, the same for the
// same parts.
func derivedHex(n int, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:n]
}
