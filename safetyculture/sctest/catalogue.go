package sctest

import (
	"cmp"
	"slices"
	"strings"

	"github.com/edapp-go/edapp/internal/fakeserver"
)

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

func listLeaderboards(c *call) any {
	return page(c, fakeserver.Map(c.st.boards.All(), func(b *leaderboard) wireLeaderboard { return b.wireLeaderboard }))
}

// rankings answers every participant at once, highest score first.
func rankings(c *call) any {
	b := find(c, c.st.boards.Get, c.URL.Query().Get("leaderboardId"), "leaderboard")
	out := wireRankings{LeaderboardID: b.ID, LeaderboardName: b.Name, Rankings: []wireRanking{}}
	ranked := slices.Clone(b.rankings)
	slices.SortStableFunc(ranked, func(a, b Ranking) int { return cmp.Compare(b.TotalScore, a.TotalScore) })
	for i, rk := range ranked {
		u := c.st.users.Get(rk.UserID)
		out.Rankings = append(out.Rankings, wireRanking{Rank: i + 1, ParticipantID: u.ID,
			ParticipantName: strings.TrimSpace(u.Firstname + " " + u.Lastname), TotalScore: rk.TotalScore, IsNotAttempted: rk.NotAttempted})
	}
	return out
}
