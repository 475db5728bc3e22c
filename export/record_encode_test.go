package export

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export/internal/jsonobj"
)

// legacyJSON is Record.JSON as it was before the encoder plans: the
// struct through json.Marshal, then the same edits. The plans must give
// the same bytes for every record (the digest covers raw).
func legacyJSON(r Record) ([]byte, error) {
	b, err := json.Marshal(r.v.Interface())
	if err != nil {
		return nil, err
	}
	b = r.finerTimes(b)
	b = r.unreadAsSent(b)
	return jsonobj.Splice(b, r.extra(), func(k string) bool { _, known := r.c.fields[k]; return known }), nil
}

// LegacyRecordJSON is legacyJSON, for the tests outside the package.
var LegacyRecordJSON = legacyJSON

// sameJSON fails t unless r.JSON and legacyJSON agree, errors included.
func sameJSON(t *testing.T, r Record) {
	t.Helper()
	got, err := r.JSON()
	want, wantErr := legacyJSON(r)
	if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("%T: error %v, legacy %v", r.Value(), err, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%T:\n got %s\nwant %s", r.Value(), got, want)
	}
}

type planLabel string

type planNested struct {
	A string `json:"a"`
}

// planOdd has a field of each shape the plans write or leave to
// encoding/json.
type planOdd struct {
	S       string            `json:"s"`
	Opt     string            `json:"opt,omitempty"`
	OptN    int               `json:"optN,omitempty"`
	OptP    *string           `json:"optP,omitempty"`
	OptL    []string          `json:"optL,omitempty"`
	Label   planLabel         `json:"label"`
	I       int64             `json:"i"`
	U       uint16            `json:"u"`
	F       float64           `json:"f"`
	F32     float32           `json:"f32"`
	PF      *float64          `json:"pf"`
	PB      *bool             `json:"pb"`
	B       bool              `json:"b"`
	T       edapp.Time        `json:"t"`
	PT      *edapp.Time       `json:"pt"`
	L       []string          `json:"l"`
	M       map[string]string `json:"m"`
	N       planNested        `json:"n"`
	Any     any               `json:"any"`
	Raw     json.RawMessage   `json:"raw"`
	NoTag   string
	Skipped string          `json:"-"`
	Extra   edapp.RawFields `json:"-"`
	hidden  string
}

// planEmbedded has no plan: encoding/json writes it.
type planEmbedded struct {
	planNested
	B string `json:"b"`
}

func TestNewPlan(t *testing.T) {
	t.Parallel()
	if newPlan(reflect.TypeOf(planOdd{})) == nil || newPlan(reflect.TypeOf(edapp.User{})) == nil {
		t.Error("a plain struct has no plan")
	}
	if newPlan(reflect.TypeOf(planEmbedded{})) != nil || newPlan(reflect.TypeOf(edapp.Time{})) != nil {
		t.Error("an embedded field or a Marshaler has a plan")
	}
}

// TestRecordJSONSameAsLegacy: records of every shape, odd values
// included, encode as they did through json.Marshal.
func TestRecordJSONSameAsLegacy(t *testing.T) {
	t.Parallel()
	fine, _ := edapp.ParseTime("2026-03-07T05:10:36.187100Z")
	ms, _ := edapp.ParseTime("2026-03-07T05:10:36.187Z")
	label := "x"
	for _, v := range []any{
		planOdd{},
		planOdd{S: `a"b\c<d>&e` + "\n\x7f\u2028é\xff", Opt: "o", OptN: 1, OptP: &label, OptL: []string{"<"}, Label: "l", I: -3, U: 7,
			F: 1e21, F32: 0.1, PF: edapp.Ptr(1e-7), PB: edapp.Ptr(true), T: fine, PT: &ms, L: []string{}, M: map[string]string{"b": "1", "a": "<"},
			N: planNested{A: "&"}, Any: map[string]any{"k": 1.5}, Raw: json.RawMessage(`{ "x" : 1 }`), NoTag: "n", Skipped: "s", hidden: "h",
			Extra: edapp.RawFields{"s": json.RawMessage(`"extra"`), "zz": json.RawMessage(`[1,2]`), "t": json.RawMessage(`"2026"`)}},
		planOdd{F: math.Copysign(0, -1), L: []string{"a", "b\tc"}, T: edapp.Time{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}},
		planOdd{F: math.NaN()},
		planEmbedded{planNested{"a"}, "b"},
		edapp.User{ID: "u1", Username: "a,b", Roles: []edapp.Role{"app-user"}, CustomFields: map[string]string{"site": "Perth"}},
		edapp.Attempt{ID: "a1", Score: edapp.Ptr(90.0), Success: true, StartedDateTime: fine, CompletedDateTime: ms},
		edapp.LessonProgressEvent{LessonScore: edapp.Ptr(87.5), Extra: edapp.RawFields{"lessonScore": json.RawMessage(`"n/a"`)}},
	} {
		r, err := newRecord(v)
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, r)
	}
}

// FuzzRecordJSON: random values and extra members encode as they did
// through json.Marshal.
func FuzzRecordJSON(f *testing.F) {
	f.Add("id", `"v"`, 1.5, int64(3), int64(1_700_000_000_187_000_000), true)
	f.Add("a\"<\u2028\xff", `{`, 1e-9, int64(-1), int64(1_700_000_000_187_100_000), false)
	f.Add("", `null`, math.Inf(1), int64(0), int64(0), true)
	f.Fuzz(func(t *testing.T, s, raw string, x float64, n, ns int64, b bool) {
		tm := edapp.Time{Time: time.Unix(0, ns).UTC()}
		if ns == 0 {
			tm = edapp.Time{}
		}
		extra := edapp.RawFields{s: json.RawMessage(raw), "s": json.RawMessage(raw), "extraKey": json.RawMessage(raw)}
		for _, v := range []any{
			planOdd{S: s, Opt: s, OptN: int(n), Label: planLabel(s), I: n, F: x, F32: float32(x), PF: &x, PB: &b, B: b, T: tm, PT: &tm,
				L: []string{s, s}, M: map[string]string{s: s}, N: planNested{A: s}, Any: s, NoTag: s, Extra: extra},
			edapp.User{ID: s, Username: s, Roles: []edapp.Role{edapp.Role(s)}, UserGroups: []string{s}, CustomFields: map[string]string{s: s}, Extra: extra},
			edapp.Attempt{ID: s, Score: &x, Success: b, EarnedStars: int(n), StartedDateTime: tm, Extra: extra},
			edapp.LessonProgressEvent{UserID: s, LessonScore: &x, EventDateTime: tm, Extra: extra},
		} {
			r, err := newRecord(v)
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, r)
		}
	})
}
