package sctest

import "github.com/edapp-go/edapp/internal/fakeserver"

func listCourses(c *call) any {
	return page(c, fakeserver.Map(c.st.courses.All(), func(co *course) wireCourse { return co.wireCourse }))
}

// courseLessons answers every lesson at once, {"lessons": [...]}.
func courseLessons(c *call) any {
	co := find(c, c.st.courses.Get, c.PathValue("courseId"), "course")
	return map[string]any{"lessons": fakeserver.Map(mapIDs(co.lessonIDs, c.st.lessons.Get), deref)}
}

func mapIDs[T any](ids []string, get func(string) *T) []*T {
	out := make([]*T, 0, len(ids))
	for _, id := range ids {
		out = append(out, get(id))
	}
	return out
}

func deref[T any](v *T) T { return *v }

func getLesson(c *call) any { return find(c, c.st.lessons.Get, c.PathValue("id"), "lesson") }

func listCollections(c *call) any {
	return page(c, fakeserver.Map(c.st.collections.All(), func(col *collection) wireCollection { return col.wireCollection }))
}

func collectionCourses(c *call) any {
	col := find(c, c.st.collections.Get, c.PathValue("courseCollectionId"), "collection")
	return page(c, fakeserver.Map(mapIDs(col.courseIDs, c.st.courses.Get), func(co *course) wireCourse { return co.wireCourse }))
}

func listPaths(c *call) any { return page(c, fakeserver.Map(c.st.paths.All(), deref)) }

func getPath(c *call) any { return find(c, c.st.paths.Get, c.PathValue("pathId"), "path") }

func listRapidRefresh(c *call) any { return page(c, fakeserver.Map(c.st.refreshes.All(), deref)) }

func getRapidRefresh(c *call) any {
	return find(c, c.st.refreshes.Get, c.PathValue("id"), "rapid refresh")
}

// listLeaderboards answers none: the fake holds no leaderboards, and so
// has no rankings route; a test that needs some answers them with Handle.
func listLeaderboards(c *call) any { return page(c, []struct{}{}) }
