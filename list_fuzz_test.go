package edapp

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/edapp-go/edapp/internal/lenient"
	"github.com/edapp-go/edapp/internal/pager"
)

type fuzzRecord struct {
	ID    string            `json:"id"`
	When  Time              `json:"when"`
	N     float64           `json:"n"`
	Tags  []string          `json:"tags"`
	Extra map[string]string `json:"extra"`
}

func FuzzListDecode(f *testing.F) {
	for _, s := range []string{
		`{"totalCount":2,"items":[{"id":"a","when":"2019-03-07T05:10:36.187Z","n":1},{"id":"b","when":"bad"}]}`,
		`[{"id":"a"},{"n":"x"}]`, `{"items":null}`, `[]`, `{}`, `"x"`, `{"items":[1,2]}`,
		`{"items":[{"id":"a","zz":1,"when":5},{"ID":"b","Tags":[1,"t"]}],"totalCount":"2","page":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var l pager.List[fuzzRecord]
		dropped, err := lenient.Decode(data, &l)
		if err == nil && !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		var plain struct {
			Items      []fuzzRecord `json:"items"`
			TotalCount *int         `json:"totalCount"`
		}
		target := any(&plain)
		if b := bytes.TrimLeft(data, " \t\r\n"); len(b) > 0 && b[0] == '[' {
			target = &plain.Items
		}
		if json.Unmarshal(data, target) == nil && (err != nil || len(dropped) > 0) {
			t.Fatalf("encoding/json decodes %q, Decode: %v, dropped %q", data, err, dropped)
		}
	})
}
