package edapptest

import (
	"net/http"
)

// v2Collection is a course collection of the catalog.
type v2Collection struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	CourseIDs   []string `json:"courseIds"`
}

// v2Course is a course of the catalog.
type v2Course struct {
	ID               string   `json:"id"`
	ExternalID       string   `json:"externalId"`
	Title            string   `json:"title"`
	Description      string   `json:"description"`
	Status           string   `json:"status"`
	Locale           string   `json:"locale"`
	Duration         int      `json:"duration"`
	ThumbnailURL     string   `json:"thumbnailUrl"`
	CreatedDateTime  wireTime `json:"createdDateTime"`
	ModifiedDateTime wireTime `json:"modifiedDateTime"`
	CollectionID     string   `json:"collectionId"`
}

// v2Lesson is a lesson of the catalog.
type v2Lesson struct {
	ID           string `json:"id"`
	ExternalID   string `json:"externalId"`
	Title        string `json:"title"`
	Description  string `json:"description"`
	Status       string `json:"status"`
	CourseID     string `json:"courseId"`
	MinimumScore int    `json:"minimumScore"`
}

func toV2Course(c *course) v2Course {
	return v2Course{
		ID: c.id, ExternalID: c.externalID, Title: c.title, Description: c.description,
		Status: c.status, Locale: c.locale, Duration: c.duration, ThumbnailURL: c.thumbnailURL,
		CreatedDateTime: wt(c.created), ModifiedDateTime: wt(c.modified), CollectionID: c.collectionID,
	}
}

func toV2Lesson(l *lesson) v2Lesson {
	return v2Lesson{
		ID: l.id, ExternalID: l.externalID, Title: l.title, Description: l.description,
		Status: l.status, CourseID: l.courseID, MinimumScore: l.minimumScore,
	}
}

func (st *store) collectionCourses(col *collection) []*course {
	var out []*course
	for _, c := range st.courses.all() {
		if c.collectionID == col.id {
			out = append(out, c)
		}
	}
	return out
}

func (c *call) v2Collections() {
	out := []v2Collection{}
	for _, col := range c.st.collections.all() {
		ids := []string{}
		for _, cr := range c.st.collectionCourses(col) {
			ids = append(ids, cr.id)
		}
		out = append(out, v2Collection{ID: col.id, Title: col.title, Description: col.description, CourseIDs: ids})
	}
	pageOf(c, out)
}

func (c *call) v2CollectionCourses() {
	col := c.st.collections.get(c.params[0])
	if col == nil {
		c.fail(http.StatusNotFound, "course collection "+quote(c.params[0])+" not found")
		return
	}
	out := []v2Course{}
	for _, cr := range c.st.collectionCourses(col) {
		out = append(out, toV2Course(cr))
	}
	pageOf(c, out)
}

// v2Courses lists every course, published or not. It also honours
// externalId and collectionId filters (an extension of the fake).
func (c *call) v2Courses() {
	ext, colID := c.q("externalid"), c.q("collectionid")
	out := []v2Course{}
	for _, cr := range c.st.courses.all() {
		if ext != "" && cr.externalID != ext || colID != "" && cr.collectionID != colID {
			continue
		}
		out = append(out, toV2Course(cr))
	}
	pageOf(c, out)
}

// v2CourseLessons answers a bare array, as the real service does.
func (c *call) v2CourseLessons() {
	cr := c.courseParam(0)
	if cr == nil {
		return
	}
	out := []v2Lesson{}
	for _, l := range c.st.courseLessons(cr) {
		out = append(out, toV2Lesson(l))
	}
	c.json(http.StatusOK, out)
}
