package lenient

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
	f.Add([]byte(`{"items":[{"login":"a","pets":[{"kind":"cat","born":"soon","chip":7}],"zz":1}],"totalCount":1}`))
	f.Add([]byte(`[{"userName":"b","labels":["x"],"pets":[{"born":"2020-01-02"}]},5]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c course
		_, _ = Decode(data, &c)
		var cs []course
		if _, err := Decode(data, &cs); err == nil && !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		var p person
		_, _ = Decode(data, &p)
		var ps []person
		var total *int
		dropped, err := DecodeList(data, &ps, &total)
		if err != nil {
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		// What was kept encodes.
		if _, err := json.Marshal(ps); err != nil {
			t.Fatalf("result does not encode: %v (dropped %q)", err, dropped)
		}
	})
}

func TestDecodeSalvagesEachElementWithinItsOwnBudget(t *testing.T) {
	// 3000 records whose every field is wrong: far more probes than one
	// budget, but each record has a budget of its own, so every record is
	// kept without its bad values.
	var b []byte
	b = append(b, '[')
	for i := range 3000 {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":true,"score":"x","lessons":[{"id":false,"done":3}]}`...)
	}
	b = append(b, ']')
	var cs []course
	dropped, err := Decode(b, &cs)
	require.NoError(t, err)
	require.Len(t, cs, 3000)
	assert.Equal(t, course{Lessons: []lesson{{}}}, cs[2999])
	require.Len(t, dropped, 3000*4)
	assert.Equal(t, []string{"[2999].id", "[2999].lessons[0].done", "[2999].lessons[0].id", "[2999].score"}, dropped[len(dropped)-4:])
}

func TestDecodeSalvageIsBounded(t *testing.T) {
	// One record with more bad fields than its budget is dropped whole;
	// its neighbours are not.
	var big strings.Builder
	big.WriteString(`[{"id":"ok"},{"score":"x"`)
	for i := range probesPerValue {
		fmt.Fprintf(&big, `,"f%d":1`, i)
	}
	big.WriteString(`,"id":true},{"id":"ok2","score":"x"}]`)
	var cs []course
	dropped, err := Decode([]byte(big.String()), &cs)
	require.NoError(t, err)
	assert.Equal(t, []course{{ID: "ok"}, {ID: "ok2"}}, cs)
	assert.Equal(t, []string{"[1]", "[2].score"}, dropped)

	// Deep nesting past the depth limit is not explored either.
	deep := []byte(`{"lessons":[{"id":"l","done":` + strings.Repeat("[", 50) + strings.Repeat("]", 50) + `}]}`)
	var c course
	dropped, err = Decode(deep, &c)
	require.NoError(t, err)
	assert.Equal(t, []string{"lessons[0].done"}, dropped)
}

// person follows the conventions: an Extra field, and spelling variants
// in the table.
type person struct {
	Name  string                     `json:"name"`
	Tags  []string                   `json:"tags"`
	Pets  []pet                      `json:"pets"`
	Extra map[string]json.RawMessage `json:"-"`
}

func init() {
	Alias[person](Spelling{"userName", "Name"}, Spelling{"login", "Name"}, Spelling{"labels", "Tags"})
	Alias[member](Spelling{"nick", "Name"})
}

// member embeds person: person's spellings and its own apply.
type member struct {
	person
	Nick string `json:"-"`
	Role string `json:"role"`
}

type pet struct {
	Kind  string                     `json:"kind"`
	Born  strictDate                 `json:"born"`
	Extra map[string]json.RawMessage `json:"-"`
}

func TestDecodeVariants(t *testing.T) {
	for in, want := range map[string]person{
		`{"name":"a","userName":"b","login":"c"}`: {Name: "a"},
		`{"userName":"b","login":"c"}`:            {Name: "b"},
		`{"name":"","login":"c"}`:                 {Name: "c"},
		`{"labels":["x"]}`:                        {Tags: []string{"x"}},
		`{"tags":[],"labels":["x"]}`:              {Tags: []string{}},
		`[]`:                                      {},
	} {
		var p person
		_, err := Decode([]byte(in), &p)
		if in == `[]` {
			assert.Error(t, err)
			continue
		}
		require.NoError(t, err, in)
		assert.Equal(t, want, p, in)
	}
	// In a list, and nested in a record.
	var ps []person
	_, err := Decode([]byte(`[{"login":"a"},{"userName":"b","pets":[{"kind":"cat"}]}]`), &ps)
	require.NoError(t, err)
	assert.Equal(t, []person{{Name: "a"}, {Name: "b", Pets: []pet{{Kind: "cat"}}}}, ps)
	// A page, item by item.
	var total *int
	_, err = DecodeList([]byte(`{"items":[{"login":"a"},{"name":"b","labels":["x"]}],"totalCount":2}`), &ps, &total)
	require.NoError(t, err)
	assert.Equal(t, []person{{Name: "a"}, {Name: "b", Tags: []string{"x"}}}, ps)
	// With a member no field takes (the slow path), and inside another value.
	var in struct{ P person }
	_, err = Decode([]byte(`{"P":{"login":"a","shoe":1}}`), &in)
	require.NoError(t, err)
	assert.Equal(t, person{Name: "a", Extra: map[string]json.RawMessage{"shoe": json.RawMessage("1")}}, in.P)
	// An embedding type takes the embedded type's spellings too.
	var m member
	_, err = Decode([]byte(`{"login":"a","role":"r"}`), &m)
	require.NoError(t, err)
	assert.Equal(t, member{person: person{Name: "a"}, Role: "r"}, m)
}

func TestDecodeKeepsUnknownMembersInExtra(t *testing.T) {
	var ps []person
	dropped, err := Decode([]byte(`[
		{"name":"a","NAME":"A","Login":"l","age":3,"pets":[{"kind":"dog","Kind":"x","chip":{"id":1}},{"kind":"cat"}]},
		{"name":"b"}
	]`), &ps)
	require.NoError(t, err)
	assert.Nil(t, dropped)
	require.Len(t, ps, 2)
	assert.Equal(t, map[string]json.RawMessage{"age": json.RawMessage(`3`)}, ps[0].Extra, "names match as encoding/json matches them")
	assert.Equal(t, map[string]json.RawMessage{"chip": json.RawMessage(`{"id":1}`)}, ps[0].Pets[0].Extra)
	assert.Nil(t, ps[0].Pets[1].Extra)
	assert.Nil(t, ps[1].Extra, "no Extra when nothing is unknown")
	assert.Equal(t, "A", ps[0].Name, "the last of the members that match wins, as in encoding/json")
}

func TestDecodeUnknownMemberDoesNotHideABadValue(t *testing.T) {
	// The one-pass check stops reporting at the first problem it saves;
	// a bad value after an unknown member must still be found and dropped.
	var p struct {
		ID    string                     `json:"id"`
		Score int                        `json:"score"`
		Extra map[string]json.RawMessage `json:"-"`
	}
	dropped, err := Decode([]byte(`{"zzz":1,"id":"x","score":"high"}`), &p)
	require.NoError(t, err)
	assert.Equal(t, []string{"score"}, dropped)
	assert.Equal(t, "x", p.ID)
	assert.Equal(t, map[string]json.RawMessage{"zzz": json.RawMessage(`1`), "score": json.RawMessage(`"high"`)}, p.Extra,
		"the dropped value is kept as sent")
}

// A record's own member whose value does not fit its field is kept in
// Extra as sent, whichever spelling carried it, so that a zero field is
// never the only trace of what the service sent.
func TestItemsKeepsADroppedMemberInExtra(t *testing.T) {
	t.Parallel()
	items, dropped, _, err := Items[pet]([]byte(`[{"kind":"cat","born":"soon"},{"kind":"dog","born":"2024-01-02"}]`), 10, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"[0].born"}, dropped)
	assert.Equal(t, map[string]json.RawMessage{"born": json.RawMessage(`"soon"`)}, items[0].Extra)
	assert.Nil(t, items[1].Extra)

	var p person
	_, err = Decode([]byte(`{"userName":["not","a","name"]}`), &p)
	require.NoError(t, err)
	assert.Empty(t, p.Name)
	assert.Equal(t, map[string]json.RawMessage{"userName": json.RawMessage(`["not","a","name"]`)}, p.Extra, "another spelling that does not fit")
}

// fields is a type defined on map[string]json.RawMessage, as the SDK's
// RawFields is.
type fields map[string]json.RawMessage

func TestDecodeFillsAnExtraOfADefinedMapType(t *testing.T) {
	var p struct {
		ID    string `json:"id"`
		Extra fields `json:"-"`
	}
	dropped, err := Decode([]byte(`{"id":"x","zzz":[1]}`), &p)
	require.NoError(t, err)
	assert.Empty(t, dropped)
	assert.Equal(t, fields{"zzz": json.RawMessage(`[1]`)}, p.Extra)
}

func TestDecodeSalvageKeepsExtraAndVariants(t *testing.T) {
	var ps []person
	dropped, err := Decode([]byte(`[{"login":"a","pets":[{"kind":"cat","born":"soon","chip":7}]}]`), &ps)
	require.NoError(t, err)
	assert.Equal(t, []string{"[0].pets[0].born"}, dropped)
	assert.Equal(t, []person{{Name: "a", Pets: []pet{{Kind: "cat", Extra: map[string]json.RawMessage{"chip": json.RawMessage(`7`)}}}}}, ps)
}

func TestDecodeTrailingDataIsAnError(t *testing.T) {
	var c course
	_, err := Decode([]byte(`{"id":"c"} {"id":"d"}`), &c)
	var syn *json.SyntaxError
	assert.ErrorAs(t, err, &syn)
	_, err = Decode([]byte(" {\"id\":\"c\"} \n"), &c)
	assert.NoError(t, err)
	_, err = Decode(nil, &c)
	assert.ErrorAs(t, err, &syn)
	_, err = Decode([]byte(`{}`), c)
	var inv *json.InvalidUnmarshalError
	assert.ErrorAs(t, err, &inv)
}

func TestDecodeListShapes(t *testing.T) {
	type rec struct {
		ID    string                     `json:"id"`
		N     int                        `json:"n"`
		Extra map[string]json.RawMessage `json:"-"`
	}
	two := 2
	for _, tc := range []struct {
		in      string
		items   []rec
		total   *int
		dropped []string
	}{
		{`{"totalCount":2,"items":[{"id":"a"},{"id":"b"}]}`, []rec{{ID: "a"}, {ID: "b"}}, &two, nil},
		{` [{"id":"a"}] `, []rec{{ID: "a"}}, nil, nil},
		{`{"items":null,"totalCount":null}`, nil, nil, nil},
		{`{"items":[],"page":1,"totalCount":2}`, []rec{}, &two, nil},
		{`{"Items":[{"id":"a"}],"TOTALCOUNT":2}`, []rec{{ID: "a"}}, &two, nil},
		{`{"items":[{"id":"a"}],"items":[{"id":"b"}]}`, []rec{{ID: "b"}}, nil, nil},
		{`{"items":[{"id":"a","x":1},{"id":"b","n":"3"},5,{"id":"c"}],"totalCount":"2"}`,
			[]rec{{ID: "a", Extra: map[string]json.RawMessage{"x": json.RawMessage(`1`)}}, {ID: "b", Extra: map[string]json.RawMessage{"n": json.RawMessage(`"3"`)}}, {ID: "c"}}, nil,
			[]string{"items[1].n", "items[2]", "totalCount"}},
		{`[{"id":"a","x":1},{"id":"b","n":"3"},5,{"id":"c"}]`,
			[]rec{{ID: "a", Extra: map[string]json.RawMessage{"x": json.RawMessage(`1`)}}, {ID: "b", Extra: map[string]json.RawMessage{"n": json.RawMessage(`"3"`)}}, {ID: "c"}}, nil,
			[]string{"[1].n", "[2]"}},
		{`{"items":{"id":"a"}}`, nil, nil, []string{"items"}},
	} {
		var items []rec
		var total *int
		dropped, err := DecodeList([]byte(tc.in), &items, &total)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.items, items, tc.in)
		assert.Equal(t, tc.total, total, tc.in)
		assert.Equal(t, tc.dropped, dropped, tc.in)
	}
	for _, bad := range []string{``, `{"items":[{"id":"a"}]`, `[{"id":"a"},]`, `[{"id":"a"}] x`, `{"items":[{"id":"a"}]} {}`, `"x"`, `3`} {
		var items []rec
		var total *int
		_, err := DecodeList([]byte(bad), &items, &total)
		assert.Error(t, err, bad)
	}
}

func TestDecodeKeepsANumberAsAStringsText(t *testing.T) {
	t.Parallel()
	var cs []course
	dropped, err := Decode([]byte(`[{"id":42,"score":3},{"id":-1.5e3},{"id":"c3"}]`), &cs)
	require.NoError(t, err)
	assert.Empty(t, dropped)
	assert.Equal(t, []string{"42", "-1.5e3", "c3"}, []string{cs[0].ID, cs[1].ID, cs[2].ID})
	assert.Equal(t, 3, cs[0].Score)
}

// TestDecodeKnownStartsEachAnswerClean: decoders are reused, and what one
// answer leaves (data after its value, a value cut short, an unknown
// member, white space) never reaches the next.
func TestDecodeKnownStartsEachAnswerClean(t *testing.T) {
	type rec struct {
		ID string `json:"id"`
	}
	for i, tc := range []struct {
		data, want string
		fails      bool
	}{
		{data: `{"id":"a"}`, want: "a"},
		{data: `{"id":"b"} {"id":"x"}`, fails: true},
		{data: `{"id":"c"}`, want: "c"},
		{data: `{"id":"d"`, fails: true},
		{data: `{"id":"e"}`, want: "e"},
		{data: `{"id":"f","other":1}`, fails: true},
		{data: `{"id":"g"}`, want: "g"},
		{data: " {\"id\":\"h\"}\n ", want: "h"},
		{data: `{"id":"i"}`, want: "i"},
		{data: `{"id":"` + strings.Repeat("j", maxReused) + `"}`, want: strings.Repeat("j", maxReused)},
		{data: `{"id":"k"}`, want: "k"},
	} {
		var r rec
		err := decodeKnown([]byte(tc.data), &r)
		if tc.fails {
			assert.Error(t, err, "answer %d", i)
			continue
		}
		require.NoError(t, err, "answer %d", i)
		assert.Equal(t, tc.want, r.ID, "answer %d", i)
	}
}

// An item encoding/json cannot read at all costs that item, not its page:
// the scanner finds its neighbours, and whole is handed its bytes.
func TestDecodeListEachContainsADeepItem(t *testing.T) {
	t.Parallel()
	deep := `{"id":"x","n":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`
	for _, page := range []string{`{"totalCount":3,"items":[{"id":"a"},` + deep + `,{"id":"b"}]}`, `[{"id":"a"},` + deep + `,{"id":"b"}]`} {
		var items []struct {
			ID string `json:"id"`
		}
		var total *int
		var wholes []string
		dropped, err := DecodeListEach([]byte(page), &items, &total, nil, func(i int, raw []byte) { wholes = append(wholes, fmt.Sprint(i, len(raw))) })
		require.NoError(t, err)
		require.Len(t, items, 2)
		assert.Equal(t, "b", items[1].ID)
		assert.Len(t, dropped, 1)
		assert.Equal(t, []string{fmt.Sprint(1, len(deep))}, wholes)
	}
}
