package dbschema

import (
	"maps"
	"slices"
)

// Migration 12 turns the PostgreSQL hash indexes of the export's tables
// into B-tree indexes, which a first load leaves out and builds after (see
// Table.BuildIndexes). A hash index holds every entry of one value in one
// bucket's chain of pages, and each insert walks that chain: the ids of
// courses and lessons repeat across thousands of rows, so loading N rows
// of one value took time growing with N², in the load and in a build
// after it alike. A B-tree is built by sorting, in one pass.
//
// Version 6 chose hash for a B-tree's bound: an entry over 2,704 bytes is
// refused, and the row with it. The export now stores NULL for a value
// over 2,000 bytes in an indexed column (the value stays in the raw
// column), so no record is refused for it. The inbox's events table keeps
// its hash indexes: a delivery is one row, written as it comes.
var btreeSteps = []step{postgresOnly{btreeIndexes(map[string][]Index{
	"users": {{Columns: []string{"external_id"}}}, "user_custom_fields": {{Columns: []string{"name"}}},
	"group_members": {{Columns: []string{"user_id"}}}, "group_children": {{Columns: []string{"child_id"}}},
	"collection_courses": {{Columns: []string{"course_id"}}}, "courses": {{Columns: []string{"external_id"}}},
	"lessons": {{Columns: []string{"course_id"}}}, "lesson_statistics": {{Columns: []string{"course_id"}}},
	"survey_questions":            {{Columns: []string{"course_id"}}, {Columns: []string{"lesson_id"}}},
	"attempts":                    {{Columns: []string{"user_id"}}, {Columns: []string{"course_id"}}, {Columns: []string{"lesson_id"}}},
	"course_progress":             {{Columns: []string{"course_id"}}},
	"lesson_progress_events":      {{Columns: []string{"course_id"}}, {Columns: []string{"lesson_id"}}},
	"survey_answers":              {{Columns: []string{"user_id"}}, {Columns: []string{"course_id"}}, {Columns: []string{"lesson_id"}}},
	"user_lesson_progress":        {{Columns: []string{"course_id"}}, {Columns: []string{"lesson_id"}}},
	"user_lesson_progress_events": {{Columns: []string{"course_id"}}, {Columns: []string{"lesson_id"}}},
	"site_members":                {{Columns: []string{"member_id"}}},
	"rapid_refresh_answers":       {{Columns: []string{"user_id"}, Deferred: true}, {Columns: []string{"rapid_refresh_id"}, Deferred: true}},
	"slide_statistics":            {{Columns: []string{"lesson_id"}, Deferred: true}},
	"user_slide_statistics":       {{Columns: []string{"slide_id"}, Deferred: true}, {Columns: []string{"lesson_id"}, Deferred: true}},
})}}

// btreeIndexes replaces each table's indexes on the same columns with
// these, in the order of the tables' names.
func btreeIndexes(indexes map[string][]Index) []step {
	var steps []step
	for _, table := range slices.Sorted(maps.Keys(indexes)) {
		for _, idx := range indexes[table] {
			steps = append(steps, dropIndex{table, idx.Columns}, createIndex{table, idx})
		}
	}
	return steps
}
