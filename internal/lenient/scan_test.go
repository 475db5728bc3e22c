package lenient

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestElementsFindsEachElementAsSent(t *testing.T) {
	t.Parallel()
	var got []string
	isArray, err := Elements([]byte(` [ {"a":"]\"}"} , 1,"x",[[]],null,true ] `), func(i int, e []byte) error {
		got = append(got, string(e))
		return nil
	})
	require.True(t, isArray)
	require.NoError(t, err)
	assert.Equal(t, []string{`{"a":"]\"}"}`, "1", `"x"`, "[[]]", "null", "true"}, got)
	isArray, _ = Elements([]byte(`{"a":1}`), nil)
	assert.False(t, isArray)
}

func TestElementsFollowsAnyDepth(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	n := 0
	_, err := Elements([]byte(`[`+deep+`,1]`), func(int, []byte) error { n++; return nil })
	require.NoError(t, err)
	assert.Equal(t, 2, n)
}

func TestMembersUnescapesKeys(t *testing.T) {
	t.Parallel()
	got := map[string]string{}
	isObject, err := Members([]byte(`{"a\u0062":1, "c" : {"d":[1,2]},"é":""}`), func(k string, v []byte) error {
		got[k] = string(v)
		return nil
	})
	require.True(t, isObject)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"ab": "1", "c": `{"d":[1,2]}`, "é": `""`}, got)
}

func TestScanRefusesMalformedStructure(t *testing.T) {
	t.Parallel()
	for _, s := range []string{`[1`, `[1,`, `[1 2]`, `["a]`, `[1] x`, `{"a"}`, `{"a":1,}`, `{"a":1`, `{a:1}`, `[,]`} {
		_, err := Elements([]byte(s), func(int, []byte) error { return nil })
		_, err2 := Members([]byte(s), func(string, []byte) error { return nil })
		assert.True(t, err != nil || err2 != nil, s)
	}
}

func FuzzElements(f *testing.F) {
	for _, s := range []string{`[]`, `[1,{"a":[2]},"x\"]"]`, `[[[`, `["\\"]`, `[1 ,2 ]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var elems []string
		_, err := Elements([]byte(s), func(_ int, e []byte) error {
			elems = append(elems, string(e))
			return nil
		})
		var want []json.RawMessage
		if json.Unmarshal([]byte(s), &want) != nil || err != nil {
			return
		}
		require.Len(t, elems, len(want))
		for i := range want {
			assert.JSONEq(t, string(want[i]), elems[i])
		}
	})
}

type itemProbe struct {
	ID string `json:"id"`
	N  int    `json:"n"`
}

// FuzzItems: Items never panics, and on a well-formed array keeps or
// reports every item, once.
func FuzzItems(f *testing.F) {
	for _, s := range []string{`[]`, `[{"id":"a"},{"id":1},{"n":"x"},[],null]`, `[{"id":"a","z":{}}]`, `[[[[1]]]]`, `[{"id":"\u00e9"} , {}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		items, dropped, isArray, err := Items[itemProbe]([]byte(s), 100, nil)
		var all []json.RawMessage
		if json.Unmarshal([]byte(s), &all) != nil || !isArray || err != nil || len(all) > 100 {
			return
		}
		whole := 0
		for _, p := range dropped {
			if strings.IndexByte(p, ']') == len(p)-1 {
				whole++
			}
		}
		require.Equal(t, len(all), len(items)+whole, "items %d, dropped %v", len(items), dropped)
	})
}
