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
	for name, orig := range map[string]scRow{
		"users":       userRowOf(safetyculture.User{ID: "u1", Extra: extra}).scRow,
		"courses":     courseRowOf(safetyculture.Course{ID: "c1", Extra: extra}).scRow,
		"progress":    progressRowOf(safetyculture.CourseProgress{UserID: "u1", CourseID: "c1", Extra: extra}).scRow,
		"groups":      {safetyculture.Group{ID: "g1", Extra: extra}},
		"group_users": {safetyculture.GroupUser{GroupID: "g1", UserID: "u1", Extra: extra}},
		"collections": {safetyculture.CourseCollection{ID: "k1", Extra: extra}},
		"lessons":     {safetyculture.Lesson{ID: "l1", Extra: extra}},
	} {
		b, err := orig.MarshalJSON()
		require.NoError(t, err, name)
		var got map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(b, &got), name)
		assert.JSONEq(t, `1830`, string(got["time_spent_seconds"]), name)
		assert.JSONEq(t, `["a","b"]`, string(got["tags"]), name)
		assert.NotContains(t, string(b), "\n", "%s: a line of JSONL holds no line break", name)
	}
}
