package lenient

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// finish completes a decoded value when raw is not nil (the answer had
// members that no field takes): it fills the fields whose members came in
// another spelling (see Alias), and the Extra fields, from raw, the JSON the
// value was decoded from.
func finish(v reflect.Value, raw []byte) {
	if raw != nil {
		walk(v, raw, true)
	}
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

// walkStruct fills the struct's aliased fields and its Extra from raw's
// members, and finishes its nested values.
func walkStruct(v reflect.Value, raw []byte, extras bool) {
	p := planOf(v.Type())
	if !p.needed(extras) {
		return
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return
	}
	var extra map[string]json.RawMessage
	if p.extra != nil {
		extra, _ = v.FieldByIndex(p.extra).Convert(rawMapType).Interface().(map[string]json.RawMessage)
	}
	for k, m := range members {
		f, ok := p.field(k)
		switch {
		case !ok && p.isAlias(k):
		case !ok && p.extra != nil:
			if extra == nil {
				extra = make(map[string]json.RawMessage)
			}
			extra[k] = m
		case ok && f.nested:
			walk(v.FieldByIndex(f.index), m, true)
		}
	}
	for _, name := range p.fillAliases(v, members) {
		if p.extra != nil {
			extra = withMember(extra, name, members[name])
		}
	}
	if extra != nil {
		f := v.FieldByIndex(p.extra)
		f.Set(reflect.ValueOf(extra).Convert(f.Type()))
	}
}

// withMember is extra with member name set to m, made when nil.
func withMember(extra map[string]json.RawMessage, name string, m json.RawMessage) map[string]json.RawMessage {
	if extra == nil {
		extra = make(map[string]json.RawMessage)
	}
	extra[name] = m
	return extra
}

// keepDropped keeps in the Extra of the record v points to the value, as
// sent in data, of each of its own members that did not fit its field
// (a dropped path naming a member of the record itself), so that what the
// service sent is not lost when the field stays zero.
func keepDropped(v reflect.Value, data []byte, dropped []string) {
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct || len(dropped) == 0 {
		return
	}
	p := planOf(v.Type())
	if p.extra == nil {
		return
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(data, &members) != nil {
		return
	}
	f := v.FieldByIndex(p.extra)
	extra, _ := f.Convert(rawMapType).Interface().(map[string]json.RawMessage)
	for _, name := range dropped {
		if m, ok := members[name]; ok && !strings.ContainsAny(name, ".[") {
			extra = withMember(extra, name, m)
		}
	}
	if extra != nil {
		f.Set(reflect.ValueOf(extra).Convert(f.Type()))
	}
}

// isAlias reports whether member name is another spelling of a field,
// matched as encoding/json matches names.
func (p *plan) isAlias(name string) bool {
	for _, a := range p.aliases {
		if strings.EqualFold(a.name, name) {
			return true
		}
	}
	return false
}

// fillAliases decodes each other spelling present in members, in order of
// preference, into its field when that is still zero. A value that does
// not fit is left out of its field; fillAliases returns the names of the
// members it left out so.
func (p *plan) fillAliases(v reflect.Value, members map[string]json.RawMessage) (unfit []string) {
	for _, a := range p.aliases {
		k := memberName(members, a.name)
		if f := v.FieldByIndex(a.index); k != "" && f.IsZero() {
			n := reflect.New(f.Type())
			if json.Unmarshal(members[k], n.Interface()) == nil {
				f.Set(n.Elem())
			} else {
				unfit = append(unfit, k)
			}
		}
	}
	return unfit
}

// memberName is the key of members that encoding/json matches to name:
// name itself, or one equal under case folding; "" when there is none.
func memberName(members map[string]json.RawMessage, name string) string {
	if _, ok := members[name]; ok {
		return name
	}
	for k := range members {
		if strings.EqualFold(k, name) {
			return k
		}
	}
	return ""
}

// plan is what finish needs to know about a type, found once.
type plan struct {
	extra   []int            // index of the Extra field; nil when there is none
	aliases []alias          // other spellings (see Alias), in order of preference
	fields  map[string]field // by JSON name
	// Whether values of the type, or values inside them, have an Extra to
	// fill or aliases to look for.
	hasExtra bool
}

type field struct {
	name   string
	index  []int
	nested bool
}

func (p *plan) needed(extras bool) bool {
	return extras && p.hasExtra
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
	p.aliases = aliasesOf(t)
	p.hasExtra = len(p.aliases) > 0
	for _, sf := range reflect.VisibleFields(t) {
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct || !sf.IsExported() || viaPointer(t, sf.Index) {
			continue
		}
		p.add(sf, making)
	}
	plans.Store(t, p)
	return p
}

// add records field sf of struct t: the Extra field, a field and its JSON
// name, a field whose values need finishing too.
func (p *plan) add(sf reflect.StructField, making map[reflect.Type]*plan) {
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
	if inner := makePlan(sf.Type, making); inner.hasExtra {
		f.nested = true
		p.hasExtra = true
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
