package edapp_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

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

// BenchmarkParseEventInterleaved decodes each payload, and then all ten,
// with ParseEvent and with json.Unmarshal into plain structs in alternating
// batches, so that both see the same load on a busy machine, and reports the
// ratio of their times:
//
//	go test -run '^$' -bench '^BenchmarkParseEventInterleaved$' -count 6 . > ratio.txt
//	go run golang.org/x/perf/cmd/benchstat@latest ratio.txt
func BenchmarkParseEventInterleaved(b *testing.B) {
	var payloads [][]byte
	var plains []reflect.Type
	for _, name := range edapp.EventNames() {
		payload := readEventFixture(b, string(name)+".json")
		ev, err := edapp.ParseEvent(payload)
		if err != nil {
			b.Fatal(err)
		}
		payloads, plains = append(payloads, payload), append(plains, plainEventType(ev))
	}
	for i, name := range edapp.EventNames() {
		b.Run("event="+string(name), func(b *testing.B) {
			benchInterleaved(b, payloads[i:i+1], plains[i:i+1])
		})
	}
	b.Run("event=all", func(b *testing.B) { benchInterleaved(b, payloads, plains) })
}

func benchInterleaved(b *testing.B, payloads [][]byte, plains []reflect.Type) {
	const batch = 8
	parseAll := func() {
		for range batch {
			for _, p := range payloads {
				if _, err := edapp.ParseEvent(p); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	unmarshalAll := func() {
		for range batch {
			for i, p := range payloads {
				if err := json.Unmarshal(p, reflect.New(plains[i]).Interface()); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	var parse, plain time.Duration
	odd := false
	for b.Loop() {
		first, second := parseAll, unmarshalAll
		if odd {
			first, second = unmarshalAll, parseAll
		}
		t0 := time.Now()
		first()
		t1 := time.Now()
		second()
		t2 := time.Now()
		if odd {
			plain, parse = plain+t1.Sub(t0), parse+t2.Sub(t1)
		} else {
			parse, plain = parse+t1.Sub(t0), plain+t2.Sub(t1)
		}
		odd = !odd
	}
	b.ReportMetric(float64(parse)/float64(plain), "ParseEvent/json.Unmarshal")
}
