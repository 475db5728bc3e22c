package lenient

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// finish completes a decoded value: it moves spelling variants into place
// and, when raw is not nil (the answer had members that no field takes),
// fills the Extra fields from raw, the JSON the value was decoded from.
func finish(v reflect.Value, raw []byte) {
	walk(v, raw, raw != nil)
}

func walk(v reflect.Value, raw []byte, extras bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			walk(v.Elem(), raw, extras)
		}
	case reflect.Slice, reflect.Array:
		walkElems(v, raw, extras)
	case reflect.Struct:
		walkStruct(v, raw, extras)
	}
}

// walkElems finishes each element of a slice or array with its own part
// of raw.
func walkElems(v reflect.Value, raw []byte, extras bool) {
	if !planOf(v.Type()).needed(extras) {
		return
	}
	var elems []json.RawMessage
	if extras {
		_ = json.Unmarshal(raw, &elems)
	}
	for i := range v.Len() {
		var e []byte
		if i < len(elems) {
			e = elems[i]
		}
		walk(v.Index(i), e, extras)
	}
}

// walkStruct moves the struct's variants into place, then finishes its
// nested values and, with extras, fills its Extra from raw's members.
func walkStruct(v reflect.Value, raw []byte, extras bool) {
	p := planOf(v.Type())
	if !p.needed(extras) {
		return
	}
	p.moveVariants(v)
	if !extras {
		for _, f := range p.nested {
			walk(v.FieldByIndex(f.index), nil, false)
		}
		return
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return
	}
	var extra map[string]json.RawMessage
	for k, m := range members {
		f, ok := p.field(k)
		switch {
		case !ok && p.extra != nil:
			if extra == nil {
				extra = make(map[string]json.RawMessage)
			}
			extra[k] = m
		case ok && f.nested:
			walk(v.FieldByIndex(f.index), m, true)
		}
	}
	if extra != nil {
		f := v.FieldByIndex(p.extra)
		f.Set(reflect.ValueOf(extra).Convert(f.Type()))
	}
}

// moveVariants moves each variant's value to its field when that is still
// zero, and clears the variant.
func (p *plan) moveVariants(v reflect.Value) {
	for _, a := range p.variants {
		from := v.FieldByIndex(a.from)
		if from.IsZero() {
			continue
		}
		if to := v.FieldByIndex(a.to); to.IsZero() {
			to.Set(from)
		}
		from.SetZero()
	}
}

// plan is what finish needs to know about a type, found once.
type plan struct {
	extra    []int // index of the Extra field; nil when there is none
	variants []variant
	fields   map[string]field // by JSON name
	nested   []field          // fields whose values need finishing too
	// Whether values of the type, or values inside them, have variants to
	// move or an Extra to fill.
	hasVariants, hasExtra bool
}

type variant struct{ from, to []int }

type field struct {
	name   string
	index  []int
	nested bool
}

func (p *plan) needed(extras bool) bool {
	return p.hasVariants || extras && p.hasExtra
}

// field finds the field that encoding/json decodes member name into: the
// exact name first, then one equal under case folding.
func (p *plan) field(name string) (field, bool) {
	if f, ok := p.fields[name]; ok {
		return f, true
	}
	for _, f := range p.fields {
		if strings.EqualFold(f.name, name) {
			return f, true
		}
	}
	return field{}, false
}

var (
	plansMu sync.Mutex
	plans   sync.Map // reflect.Type -> *plan
)

var rawMapType = reflect.TypeFor[map[string]json.RawMessage]()

// isRawMap reports whether t is map[string]json.RawMessage or a type
// defined on it (the SDK's RawFields, say).
func isRawMap(t reflect.Type) bool {
	return t.Kind() == reflect.Map && t.ConvertibleTo(rawMapType)
}

// planOf returns the plan of t: for a pointer, slice or array, that of
// its element. A recursive type sees its own plan as empty while the plan
// is being made.
func planOf(t reflect.Type) *plan {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	plansMu.Lock()
	defer plansMu.Unlock()
	return makePlan(t, map[reflect.Type]*plan{})
}

func makePlan(t reflect.Type, making map[reflect.Type]*plan) *plan {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	if p, ok := making[t]; ok {
		return p
	}
	p := &plan{}
	making[t] = p
	if t.Kind() != reflect.Struct {
		plans.Store(t, p)
		return p
	}
	p.fields = make(map[string]field)
	for _, sf := range reflect.VisibleFields(t) {
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct || !sf.IsExported() || viaPointer(t, sf.Index) {
			continue
		}
		p.add(t, sf, making)
	}
	plans.Store(t, p)
	return p
}

// add records field sf of struct t: the Extra field, a field and its JSON
// name, a variant, a field whose values need finishing too.
func (p *plan) add(t reflect.Type, sf reflect.StructField, making map[reflect.Type]*plan) {
	tag := sf.Tag.Get("json")
	if tag == "-" {
		if sf.Name == "Extra" && isRawMap(sf.Type) {
			p.extra = sf.Index
			p.hasExtra = true
		}
		return
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = sf.Name
	}
	f := field{name: name, index: sf.Index}
	if to := sf.Tag.Get("variant"); to != "" {
		if target, ok := t.FieldByName(to); ok && target.Type == sf.Type {
			p.variants = append(p.variants, variant{from: sf.Index, to: target.Index})
			p.hasVariants = true
		}
	}
	if inner := makePlan(sf.Type, making); inner.hasVariants || inner.hasExtra {
		f.nested = true
		p.nested = append(p.nested, f)
		p.hasVariants = p.hasVariants || inner.hasVariants
		p.hasExtra = p.hasExtra || inner.hasExtra
	}
	if _, dup := p.fields[name]; !dup {
		p.fields[name] = f
	}
}

// viaPointer reports whether the field at index is promoted through an
// embedded pointer, which may be nil: such fields are left alone.
func viaPointer(t reflect.Type, index []int) bool {
	for _, i := range index[:len(index)-1] {
		f := t.Field(i)
		if f.Type.Kind() == reflect.Pointer {
			return true
		}
		t = f.Type
	}
	return false
}
