package export

import (
	"encoding/json"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every SafetyCulture row's raw keeps the members the SDK does not know.
func TestSCRowRawKeepsUnknownMembers(t *testing.T) {
	t.Parallel()
	extra := edapp.RawFields{"time_spent_seconds": json.RawMessage(`1830`), "tags": json.RawMessage("[\"a\",\n\"b\"]")}
	for name, row := range map[string]any{
		"users":       userRowOf(safetyculture.User{ID: "u1", Extra: extra}),
		"courses":     courseRowOf(safetyculture.Course{ID: "c1", Extra: extra}),
		"progress":    progressRowOf(safetyculture.CourseProgress{UserID: "u1", CourseID: "c1", Extra: extra}),
		"groups":      scGroupRow{"g1", "G", scRow{safetyculture.Group{ID: "g1", Extra: extra}}},
		"group_users": scMemberRow{"g1", "u1", scRow{safetyculture.GroupUser{GroupID: "g1", UserID: "u1", Extra: extra}}},
		"collections": scCollectionRow{"k1", "K", "", scRow{safetyculture.CourseCollection{ID: "k1", Extra: extra}}},
		"lessons":     scLessonRow{"l1", "c1", "", "L", "", "", 0, scRow{safetyculture.Lesson{ID: "l1", Extra: extra}}},
	} {
		var orig scRow
		switch r := row.(type) {
		case scUserRow:
			orig = r.scRow
		case scCourseRow:
			orig = r.scRow
		case scProgressRow:
			orig = r.scRow
		case scGroupRow:
			orig = r.scRow
		case scMemberRow:
			orig = r.scRow
		case scCollectionRow:
			orig = r.scRow
		case scLessonRow:
			orig = r.scRow
		}
		b, err := orig.MarshalJSON()
		require.NoError(t, err, name)
		var got map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(b, &got), name)
		assert.JSONEq(t, `1830`, string(got["time_spent_seconds"]), name)
		assert.JSONEq(t, `["a","b"]`, string(got["tags"]), name)
		assert.NotContains(t, string(b), "\n", "%s: a line of JSONL holds no line break", name)
	}
}
