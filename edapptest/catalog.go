package edapptest

import (
	"net/http"
	"slices"
)

func toV2Course(c *course) v2Course {
	return v2Course{
		ID: c.id, ExternalID: c.externalID, Title: c.title, Description: c.description,
		Status: c.status, Locale: c.locale, Duration: c.duration, ThumbnailURL: c.thumbnailURL,
		CreatedDateTime: wt(c.created), ModifiedDateTime: wt(c.modified),
	}
}

func toV2Lesson(l *lesson) v2Lesson {
	return v2Lesson{
		ID: l.id, ExternalID: l.externalID, Title: l.title, Description: l.description,
		Status: l.status, MinimumScore: l.minimumScore,
	}
}

func collectionCourses(st *store, col *collection) []*course {
	return st.courses.Filter(func(c *course) bool { return slices.Contains(c.collectionIDs, col.id) })
}

func v2Collections(c *exchange) {
	pageMap(c, c.st.collections.All(), func(col *collection) v2Collection {
		return v2Collection{ID: col.id, ExternalID: col.externalID, Title: col.title, Description: col.description}
	})
}

func v2CollectionCourses(c *exchange) {
	if col := param(c, 0, &c.st.collections, "course collection"); col != nil {
		pageMap(c, collectionCourses(c.st, col), toV2Course)
	}
}

// v2Courses lists every course, published or not.
func v2Courses(c *exchange) { pageMap(c, c.st.courses.All(), toV2Course) }

// v2CourseLessons answers a bare array, as the real service does.
func v2CourseLessons(c *exchange) {
	cr := c.courseParam(0)
	if cr == nil {
		return
	}
	c.json(http.StatusOK, convert(c.st.courseLessons(cr), toV2Lesson))
}
