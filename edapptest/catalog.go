package edapptest

import (
	"net/http"
	"slices"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

func toV2Course(c *course) v2Course { return c.v2Course }

func collectionCourses(st *store, col *collection) []*course {
	return st.courses.Filter(func(c *course) bool { return slices.Contains(c.collectionIDs, col.ID) })
}

func v2Collections(c *exchange) {
	pageMap(c, c.st.collections.All(), func(col *collection) v2Collection { return *col })
}

func v2CollectionCourses(c *exchange) {
	if col := param(c, "id", &c.st.collections, "course collection"); col != nil {
		pageMap(c, collectionCourses(c.st, col), toV2Course)
	}
}

// v2Courses lists every course, published or not.
func v2Courses(c *exchange) { pageMap(c, c.st.courses.All(), toV2Course) }

// v2CourseLessons answers a bare array, as the real service does.
func v2CourseLessons(c *exchange) {
	cr := c.courseParam("id")
	if cr == nil {
		return
	}
	c.json(http.StatusOK, fakeserver.Map(c.st.courseLessons(cr), func(l *lesson) v2Lesson { return l.v2Lesson }))
}
