package dbschema

import "slices"

// Migration 11 adds the tables of SafetyCulture's kinds that EdApp has no
// analogue for: learning paths, rapid-refresh answers and slide
// statistics. SafetyCulture's statistics, surveys, lesson-progress events
// and per-user reads write EdApp's tables, whose columns both fill. Their
// indexes on ids serve reads only, so they are deferred: a first load
// writes faster without them.

var safetyCultureAnalyticsSteps = createTables(learningPathsTable, rapidRefreshAnswersTable, slideStatisticsTable, userSlideStatisticsTable)

// readIndex is a deferred hash index on one text column, for reads.
func readIndex(column string) Index {
	return Index{Columns: []string{column}, Hash: true, Deferred: true}
}

// runIndex serves a complete fetch's delete of the rows it did not see.
var runIndex = Index{Columns: []string{"edapp_run"}}

var learningPathsTable = Table{Name: "learning_paths", Description: "One row per learning path, an ordered set of courses (SafetyCulture only).", Key: []string{"id", "source"},
	Indexes: []Index{runIndex},
	Columns: []Column{
		sourceColumn,
		{Name: "id", Type: Text, Field: "id", Origin: FromSafetyCulture, Description: "The learning path's SafetyCulture id."},
		{Name: "title", Type: Text, Field: "title", Origin: FromSafetyCulture, Nullable: true, Description: "The learning path's title."},
		{Name: "description", Type: Text, Field: "description", Origin: FromSafetyCulture, Nullable: true, Description: "The learning path's description."},
		{Name: "is_published", Type: Bool, Field: "isPublished", Origin: FromSafetyCulture, Nullable: true, Description: "Whether the learning path is published to learners."},
		{Name: "courses", Type: JSON, Field: "courses", Origin: FromSafetyCulture, Nullable: true, Description: "The path's courses in order, a JSON array as the service sends it (not documented: the fake sends {id, externalId}); NULL when the service sends none."},
		scRawColumn,
		runColumn,
	},
}

var rapidRefreshAnswersTable = Table{Name: "rapid_refresh_answers", Description: "One row per answer in a rapid refresh (SafetyCulture only; the fields past the ids are not documented and are kept in raw).", Key: []string{"id", "source"},
	Indexes: []Index{readIndex("user_id"), readIndex("rapid_refresh_id"), runIndex},
	Columns: []Column{
		sourceColumn,
		{Name: "id", Type: Text, Field: "id", Origin: FromSafetyCulture, Description: "The answer's SafetyCulture id."},
		{Name: "user_id", Type: Text, Field: "userId", Origin: FromSafetyCulture, Nullable: true, Description: "The SafetyCulture id of the learner who answered."},
		{Name: "rapid_refresh_id", Type: Text, Field: "rapidRefreshId", Origin: FromSafetyCulture, Nullable: true, Description: "The SafetyCulture id of the rapid refresh the answer belongs to."},
		scRawColumn,
		runColumn,
	},
}

// slideColumns identify a slide in the slide statistics.
var slideColumns = []Column{
	{Name: "slide_id", Type: Text, Field: "slideId", Origin: FromSafetyCulture, Description: "The slide's SafetyCulture id."},
	{Name: "lesson_id", Type: Text, Field: "lessonId", Origin: FromSafetyCulture, Nullable: true, Description: "The SafetyCulture id of the slide's lesson."},
	{Name: "course_id", Type: Text, Field: "courseId", Origin: FromSafetyCulture, Nullable: true, Description: "The SafetyCulture id of the slide's course."},
}

var slideStatisticsTable = Table{Name: "slide_statistics", Description: "One row per slide: its statistics (SafetyCulture only; the fields past the ids are not documented and are kept in raw).", Key: []string{"slide_id", "source"},
	Indexes: []Index{readIndex("lesson_id"), runIndex},
	Columns: slices.Concat([]Column{sourceColumn}, slideColumns, []Column{scRawColumn, runColumn}),
}

var userSlideStatisticsTable = Table{Name: "user_slide_statistics", Description: "One row per learner and slide: the learner's statistics on it (SafetyCulture only, --per-user; the fields past the ids are not documented and are kept in raw).", Key: []string{"user_id", "slide_id", "source"},
	Indexes: []Index{readIndex("slide_id"), readIndex("lesson_id"), runIndex},
	Columns: slices.Concat([]Column{sourceColumn,
		{Name: "user_id", Type: Text, Field: "userId", Origin: FromSafetyCulture, Description: "The learner's SafetyCulture user id."},
	}, slideColumns, []Column{scRawColumn, runColumn}),
}
