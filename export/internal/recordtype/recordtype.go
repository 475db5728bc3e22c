// Package recordtype reads, once per type, where a record struct keeps
// each of its JSON fields: the engine reads records by it, and the SQL
// destination lays a type's fields out in a table's columns by it.
package recordtype

import (
	"reflect"
	"strings"
	"sync"

	"github.com/edapp-go/edapp"
)

// Fields is where a record struct type keeps its JSON fields.
type Fields struct {
	ByName map[string][]int // JSON name -> field index
	Extra  []int            // the fields the SDK did not decode; nil: none
	Times  []string         // the JSON names of the edapp.Time fields, in order
}

var (
	byType    sync.Map // reflect.Type -> *Fields
	timeType  = reflect.TypeFor[edapp.Time]()
	extraType = reflect.TypeFor[edapp.RawFields]()
)

// Of is t's fields, read the first time and kept.
func Of(t reflect.Type) *Fields {
	if f, ok := byType.Load(t); ok {
		return f.(*Fields)
	}
	f := read(t)
	byType.Store(t, f)
	return f
}

func read(t reflect.Type) *Fields {
	fs := &Fields{ByName: map[string][]int{}}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		if f.Name == "Extra" && f.Type == extraType {
			fs.Extra = f.Index
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := fs.ByName[name]; !dup {
			fs.ByName[name] = f.Index
			if f.Type == timeType {
				fs.Times = append(fs.Times, name)
			}
		}
	}
	return fs
}
