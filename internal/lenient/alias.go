package lenient

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
)

// aliases is the decoder's table of spelling variants: for a record type,
// the other JSON names the service may send for some of its fields.
var aliases sync.Map // reflect.Type -> []Spelling

// Spelling is another JSON name for a record's field: Name fills Field.
type Spelling struct{ Name, Field string }

// Alias declares other spellings of T's fields, in order of preference:
// each fills its Field (a field of T, or one promoted from a struct T
// embeds) when the field's own member is absent or zero, and when no
// spelling before it has filled it. The record types stay free of the
// variants, so they are never seen or sent. Call it while the package
// initialises, before anything decodes a T; a Field T does not have
// panics there.
func Alias[T any](spellings ...Spelling) {
	t := reflect.TypeFor[T]()
	for _, s := range spellings {
		if _, ok := t.FieldByName(s.Field); !ok {
			panic(fmt.Sprintf("lenient.Alias: %v has no field %s (for %q)", t, s.Field, s.Name))
		}
	}
	aliases.Store(t, spellings)
}

// alias is a Spelling of a field of the type at hand, by the field's index.
type alias struct {
	name  string
	index []int
}

// aliasesOf returns t's spellings and those of the structs it embeds, in
// order of preference, each with the index of the field it fills.
func aliasesOf(t reflect.Type) []alias {
	var out []alias
	var embedded func(reflect.Type)
	embedded = func(et reflect.Type) {
		if list, ok := aliases.Load(et); ok {
			for _, s := range list.([]Spelling) {
				if sf, ok := t.FieldByName(s.Field); ok {
					out = append(out, alias{name: s.Name, index: sf.Index})
				}
			}
		}
		for i := range et.NumField() {
			if f := et.Field(i); f.Anonymous && f.Type.Kind() == reflect.Struct {
				embedded(f.Type)
			}
		}
	}
	embedded(t)
	return out
}

// wire is how a record type with aliases is decoded in one pass: into a
// struct made at run time that embeds the record and has one more field
// per alias, after which each alias's value moves to its field when that
// is still zero.
type wire struct {
	typ  reflect.Type // struct{ Record T; Alt0, Alt1, ... }
	to   [][]int      // to[i]: the field of T that Alt{i} fills
	elem bool         // typ is a slice of wire structs, for a []T
	pool sync.Pool    // of zero *typ values (as any), for a record's wire
}

var wires sync.Map // reflect.Type -> *wire (nil: none)

// wireOf returns the wire of t, a record type or a slice of one; nil when
// t has no aliases.
func wireOf(t reflect.Type) *wire {
	if w, ok := wires.Load(t); ok {
		return w.(*wire)
	}
	w := makeWire(t)
	wires.Store(t, w)
	return w
}

func makeWire(t reflect.Type) *wire {
	if t.Kind() == reflect.Slice {
		if w := wireOf(t.Elem()); w != nil && !w.elem {
			return &wire{typ: reflect.SliceOf(w.typ), to: w.to, elem: true}
		}
		return nil
	}
	if t.Kind() != reflect.Struct || decodesItself(t) {
		return nil
	}
	list := aliasesOf(t)
	if len(list) == 0 {
		return nil
	}
	fields := []reflect.StructField{{Name: "Record", Type: t, Anonymous: true}}
	w := &wire{}
	for i, a := range list {
		fields = append(fields, reflect.StructField{
			Name: fmt.Sprintf("Alt%d", i),
			Type: t.FieldByIndex(a.index).Type,
			Tag:  reflect.StructTag(fmt.Sprintf(`json:%q`, a.name+",omitzero")),
		})
		w.to = append(w.to, a.index)
	}
	w.typ = reflect.StructOf(fields)
	return w
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decodesItself reports whether encoding/json hands t's values to a method
// of theirs, which a wire embedding t would hide.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(unmarshalerType) || p.Implements(textUnmarshalerType)
}

// new returns a pointer to a new zero wire value.
func (w *wire) new() reflect.Value { return reflect.New(w.typ) }

// decodeKnownInto is decodeKnown into dst, the record or slice w stands
// for, through a wire value of the pool (a record's) or a new one.
func (w *wire) decodeKnownInto(data []byte, dst reflect.Value) error {
	ptr := w.pool.Get() // a pointer to a zero wire value, or nil
	if ptr == nil {
		ptr = w.new().Interface()
	}
	wv := reflect.ValueOf(ptr)
	err := decodeKnown(data, ptr)
	if err == nil {
		w.unwire(wv.Elem(), dst)
	}
	if !w.elem { // a slice's elements are copied out, but its array is kept
		wv.Elem().SetZero()
		w.pool.Put(ptr)
	}
	return err
}

// unwire moves what was decoded into wv (a wire struct or slice) into dst,
// the record or slice it stands for.
func (w *wire) unwire(wv, dst reflect.Value) {
	if !w.elem {
		w.unwireOne(wv, dst)
		return
	}
	if wv.IsNil() {
		dst.SetZero()
		return
	}
	out := reflect.MakeSlice(dst.Type(), wv.Len(), wv.Len())
	for i := range wv.Len() {
		w.unwireOne(wv.Index(i), out.Index(i))
	}
	dst.Set(out)
}

func (w *wire) unwireOne(wv, dst reflect.Value) {
	rec := wv.Field(0)
	for i, index := range w.to {
		alt := wv.Field(i + 1)
		if alt.IsZero() {
			continue
		}
		if f := rec.FieldByIndex(index); f.IsZero() {
			f.Set(alt)
		}
	}
	dst.Set(rec)
}
