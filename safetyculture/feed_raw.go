package safetyculture

import "encoding/json"

// rawKeeper is a feed row that keeps its bytes as received.
type rawKeeper interface{ keepRaw(b []byte) }

func (r *CourseProgress) keepRaw(b []byte) { r.raw = string(b) }
func (r *User) keepRaw(b []byte)           { r.raw = string(b) }
func (r *Group) keepRaw(b []byte)          { r.raw = string(b) }
func (r *GroupUser) keepRaw(b []byte)      { r.raw = string(b) }
func (r *Site) keepRaw(b []byte)           { r.raw = string(b) }
func (r *SiteMember) keepRaw(b []byte)     { r.raw = string(b) }

// Raw returns the row as the feed sent it: the bytes of its JSON object,
// every member included, as received; nil for a row not read from a feed.
func (r CourseProgress) Raw() json.RawMessage { return rawOf(r.raw) }

// Raw returns the row as the feed sent it; see [CourseProgress.Raw].
func (r User) Raw() json.RawMessage { return rawOf(r.raw) }

// Raw returns the row as the feed sent it; see [CourseProgress.Raw].
func (r Group) Raw() json.RawMessage { return rawOf(r.raw) }

// Raw returns the row as the feed sent it; see [CourseProgress.Raw].
func (r GroupUser) Raw() json.RawMessage { return rawOf(r.raw) }

// Raw returns the row as the feed sent it; see [CourseProgress.Raw].
func (r Site) Raw() json.RawMessage { return rawOf(r.raw) }

// Raw returns the row as the feed sent it; see [CourseProgress.Raw].
func (r SiteMember) Raw() json.RawMessage { return rawOf(r.raw) }

func rawOf(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}
