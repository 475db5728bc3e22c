package v1_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/edapp-go/edapp/internal/lenient"
	v1 "github.com/edapp-go/edapp/v1"
)

// FuzzCourseDecode feeds arbitrary bytes to the course and report decoders,
// strict (encoding/json) and lenient (what Client.Do uses). Neither may
// panic; a strict success must re-encode to JSON that decodes to the same
// encoding; the lenient decoder must agree with a strict success and drop
// nothing then.
func FuzzCourseDecode(f *testing.F) {
	for _, name := range []string{"courses.json", "report.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`[]`, `null`, `{}`, `[{}]`, `[null]`,
		`[{"id":"c","title":"t","lessons":[{"id":"l","launchURI":"https://w/launch-lesson?token=x&lesson=l"}]}]`,
		`[{"completedDate":null,"completionDate":"2021-02-02T00:00:00Z","lessons":[{"completionDate":"2021-02-02"}]}]`,
		`[{"completedDate":"2021-01-01T00:00:00Z","completionDate":"bad"}]`,
		`[{"completionDate":"bad"}]`, `[{"id":"c",`,
		`{"lessons":[{"duration":1.5,"slides":[{"name":"s","interactions":[{"date":"2019-03-07T05:10:36.187Z","type":"slide","result":{"correct":true,"too_slow":true}},{"type":"view","duration":2}]}]}]}`,
		`{"lessons":[{"duration":"12","slides":[{"interactions":[{"result":null,"date":""}]}]}]}`,
		`[{"unlocked":"yes","openedDate":12,"lessons":{}}]`,
		`[{"completedDate":"0000-01-01T00:00:00+01:00","lessons":[{"openedDate":"9999-12-31T23:59:59-23:00"}]}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode[[]v1.Course](t, data)
		checkDecode[v1.CourseReport](t, data)
	})
}

func checkDecode[T any](t *testing.T, data []byte) {
	var strict T
	strictErr := json.Unmarshal(data, &strict)

	var tolerant T
	dropped, lenientErr := lenient.Decode(data, &tolerant)
	if lenientErr == nil {
		if _, err := json.Marshal(tolerant); err != nil {
			t.Fatalf("lenient result does not encode: %v", err)
		}
	}
	if strictErr != nil {
		return
	}
	if lenientErr != nil || len(dropped) > 0 {
		t.Fatalf("strict decode succeeded, lenient: %v, dropped %v", lenientErr, dropped)
	}
	// What the SDK decoded encodes in the documented spellings, and reads
	// back to the same thing.
	once, err := json.Marshal(tolerant)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	var again T
	if _, err := lenient.Decode(once, &again); err != nil {
		t.Fatalf("re-decode of %s: %v", once, err)
	}
	twice, err := json.Marshal(again)
	if err != nil {
		t.Fatalf("re-encode: %v", err)
	}
	if !bytes.Equal(once, twice) {
		t.Fatalf("round trip changed:\n%s\n%s", once, twice)
	}
}
