package jsonx

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type strictDate string

func (d *strictDate) UnmarshalJSON(b []byte) error {
	if len(b) != 12 {
		return errors.New("bad date")
	}
	*d = strictDate(b[1:11])
	return nil
}

type lesson struct {
	ID   string     `json:"id"`
	Done strictDate `json:"done"`
}

type course struct {
	ID      string   `json:"id"`
	Score   int      `json:"score"`
	Lessons []lesson `json:"lessons"`
}

func TestDecodeFastPath(t *testing.T) {
	var c course
	dropped, err := Decode([]byte(`{"id":"c1","score":3,"lessons":[{"id":"l1","done":"2020-01-02"}]}`), &c)
	require.NoError(t, err)
	assert.Nil(t, dropped)
	assert.Equal(t, course{ID: "c1", Score: 3, Lessons: []lesson{{ID: "l1", Done: "2020-01-02"}}}, c)
}

func TestDecodeDropsOnlyWhatDoesNotFit(t *testing.T) {
	var cs []course
	dropped, err := Decode([]byte(`[
		{"id":"c1","score":"high","lessons":[{"id":"l1","done":"2020-01-02"},{"id":"l2","done":"soon"}]},
		{"id":"c2","score":2,"lessons":null}
	]`), &cs)
	require.NoError(t, err)
	require.Len(t, cs, 2)
	assert.Equal(t, "c1", cs[0].ID)
	assert.Zero(t, cs[0].Score)
	assert.Equal(t, []lesson{{ID: "l1", Done: "2020-01-02"}, {ID: "l2"}}, cs[0].Lessons)
	assert.Equal(t, course{ID: "c2", Score: 2}, cs[1])
	assert.ElementsMatch(t, []string{"[0].score", "[0].lessons[1].done"}, dropped)
}

func TestDecodeMalformedIsAnError(t *testing.T) {
	var c course
	_, err := Decode([]byte(`{"id":`), &c)
	var syn *json.SyntaxError
	assert.ErrorAs(t, err, &syn)
	_, err = Decode([]byte(`<html>`), &c)
	assert.Error(t, err)
}

func TestDecodeWholeValueOfWrongKind(t *testing.T) {
	var c course
	_, err := Decode([]byte(`"a string"`), &c)
	assert.Error(t, err, "nothing can be saved from a string where an object belongs")
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"id":"c1","score":3,"lessons":[{"id":"l1","done":"2020-01-02"}]}`, `[{"score":"x"}]`, `{"lessons":[1,{"done":5}]}`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c course
		_, _ = Decode(data, &c)
		var cs []course
		dropped, err := Decode(data, &cs)
		if err == nil && json.Valid(data) {
			_ = fmt.Sprint(dropped)
		}
	})
}

func TestDecodeSalvageIsBounded(t *testing.T) {
	// 3000 records whose every field is wrong: salvage would need far more
	// than its budget of probes, so Decode gives up with the JSON error.
	var b []byte
	b = append(b, '[')
	for i := range 3000 {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":1,"score":"x","lessons":[{"id":2,"done":3}]}`...)
	}
	b = append(b, ']')
	var cs []course
	_, err := Decode(b, &cs)
	assert.Error(t, err)

	// Deep nesting past the depth limit is not explored either.
	deep := []byte(`{"lessons":[{"id":"l","done":` + strings.Repeat("[", 50) + strings.Repeat("]", 50) + `}]}`)
	var c course
	dropped, err := Decode(deep, &c)
	require.NoError(t, err)
	assert.Equal(t, []string{"lessons[0].done"}, dropped)
}
