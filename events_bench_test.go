package edapp_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/edapp-go/edapp"
)

// plainEventType is the baseline target for an event's payload: a struct
// with eventName and the event's fields and tags, datetimes as strings, and
// no methods, so that encoding/json decodes it all by itself.
func plainEventType(ev edapp.Event) reflect.Type {
	fields := []reflect.StructField{{Name: "EventName", Type: reflect.TypeFor[string](), Tag: `json:"eventName"`}}
	for _, f := range reflect.VisibleFields(reflect.TypeOf(ev).Elem()) {
		if f.Type == reflect.TypeFor[edapp.Time]() {
			f.Type = reflect.TypeFor[string]()
		}
		f.Index, f.Offset = nil, 0
		fields = append(fields, f)
	}
	return reflect.StructOf(fields)
}

// BenchmarkParseEvent compares, per event, ParseEvent with json.Unmarshal
// of the same payload into a plain struct (see plainEventType), side by side:
//
//	go test -run '^$' -bench '^BenchmarkParseEvent$' -benchmem -count 6 . > parse.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /decoder parse.txt
func BenchmarkParseEvent(b *testing.B) {
	for _, name := range edapp.EventNames() {
		payload := readEventFixture(b, string(name)+".json")
		ev, err := edapp.ParseEvent(payload)
		if err != nil {
			b.Fatal(err)
		}
		plain := plainEventType(ev)
		if err := json.Unmarshal(payload, reflect.New(plain).Interface()); err != nil {
			b.Fatal(err)
		}
		b.Run("event="+string(name)+"/decoder=ParseEvent", func(b *testing.B) {
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := edapp.ParseEvent(payload); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("event="+string(name)+"/decoder=json.Unmarshal", func(b *testing.B) {
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			for b.Loop() {
				if err := json.Unmarshal(payload, reflect.New(plain).Interface()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
