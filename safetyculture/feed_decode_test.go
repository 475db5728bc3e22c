package safetyculture

import (
	"errors"
	"strings"
	"testing"

	"github.com/edapp-go/edapp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFeedAnswerDecodeRefusesAPageOverTheBound(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	body := `{"metadata":{"next_page":null},"data":[` + strings.Repeat(`{},`, MaxFeedItems) + `{}]}`
	w.handle("GET /feed/groups", 200, body)
	_, err := collect(t, w.client(t).Feeds.AllGroups(ctx))
	require.ErrorIs(t, err, ErrPageTooLarge)
	var de *edapp.DecodeError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "/feed/groups", de.Path, "the error names the feed")

	// At the bound, the page is read.
	var a feedAnswer[Group]
	_, err = a.DecodeJSON([]byte(`{"data":[` + strings.Repeat(`{},`, MaxFeedItems-1) + `{}]}`))
	require.NoError(t, err)
	assert.Len(t, a.Data, MaxFeedItems)
}

func TestFeedAnswerDecodeContainsADeepRecord(t *testing.T) {
	t.Parallel()
	deep := `{"id":"g2","nested":` + strings.Repeat(`[`, 20_000) + strings.Repeat(`]`, 20_000) + `}`
	w := newWire(t)
	w.handle("GET /feed/groups", 200, `{"metadata":{"next_page":null},"data":[{"id":"g1"},`+deep+`,{"id":"g3"}]}`)
	var resp edapp.Response
	page, err := w.client(t).Feeds.ListGroups(ctx, nil, edapp.WithResponseInto(&resp))
	require.NoError(t, err, "one record nested 20,000 deep costs that record, not its page")
	require.Len(t, page.Items, 2)
	assert.Equal(t, "g1", page.Items[0].ID)
	assert.Equal(t, "g3", page.Items[1].ID)
	assert.Equal(t, []string{"data[1]"}, resp.Dropped)
}

func TestFeedAnswerDecodeBoundsExtra(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 6<<10)
	var a feedAnswer[User]
	dropped, err := a.DecodeJSON([]byte(`{"data":[{"id":"u1","a":"` + big + `","b":"` + big + `","c":"` + big + `","d":1}]}`))
	require.NoError(t, err)
	require.Len(t, a.Data, 1)
	u := a.Data[0]
	assert.Equal(t, "u1", u.ID)
	size := 0
	for k, v := range u.Extra {
		size += len(k) + len(v)
	}
	assert.LessOrEqual(t, size, MaxExtraBytes)
	assert.Contains(t, u.Extra, "a")
	assert.Contains(t, u.Extra, "b")
	assert.Contains(t, u.Extra, "d", "a member that still fits is kept")
	assert.Equal(t, []string{"data[0].c"}, dropped)
}

func TestFeedAnswerDecodeShapes(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]struct {
		rows    int
		dropped []string
		err     bool
	}{
		`{"metadata":{"next_page":"/x","next_page_token":"t"},"data":[{"id":"g1"}]}`: {rows: 1},
		`{"Metadata":{"next_page":null},"DATA":[{"id":"g1"},{"id":"g2"}]}`:           {rows: 2},
		`{"metadata":{"next_page":null},"data":null}`:                                {},
		`{"metadata":[1],"data":[{"id":"g1"}]}`:                                      {rows: 1, dropped: []string{"metadata"}},
		`{"metadata":{},"data":{"id":"g1"}}`:                                         {dropped: []string{"data"}},
		`{"data":[{"id":"g1"},{"id":7},{"id":"g3" "x":1},[]]}`:                       {rows: 2, dropped: []string{"data[2]", "data[3]"}},
		`null`:                               {},
		`[{"id":"g1"}]`:                      {err: true},
		`{"data":[{"id":"g1"}`:               {err: true},
		`{"data":[{"id":"g1"}]} x`:           {err: true},
		`{"data":[{"id":"g1\"]}"}]}`:         {rows: 1},
		`{"da\u0074a":[{"id":"g1"}],"m":{}}`: {rows: 1},
	} {
		var a feedAnswer[Group]
		dropped, err := a.DecodeJSON([]byte(body))
		if want.err {
			assert.Error(t, err, body)
			continue
		}
		require.NoError(t, err, body)
		assert.Len(t, a.Data, want.rows, body)
		assert.Equal(t, want.dropped, dropped, body)
	}
}

func TestFeedAnswerDecodeCountsDroppedRowsAsReceived(t *testing.T) {
	t.Parallel()
	var a feedAnswer[Group]
	_, err := a.DecodeJSON([]byte(`{"data":[{"id":"g1"},"x",{"id":"g3"}]}`))
	require.NoError(t, err)
	assert.Equal(t, 3, a.received)
	assert.False(t, errors.Is(err, ErrPageTooLarge))
}

// The attack page: 8 MB of empty records through the client. It is
// refused having decoded MaxFeedItems rows, not read whole.
func TestFeedsRefuseAMillionEmptyRecords(t *testing.T) {
	t.Parallel()
	w := newWire(t)
	w.handle("GET /training/v1/feed/training-course-progress", 200,
		`{"metadata":{"next_page":null},"data":[`+strings.Repeat(`{},`, 8<<20/3)+`{}]}`)
	_, err := collect(t, w.client(t).Feeds.AllCourseProgress(ctx, nil))
	require.ErrorIs(t, err, ErrPageTooLarge)
	assert.ErrorContains(t, err, "/training/v1/feed/training-course-progress")
}
