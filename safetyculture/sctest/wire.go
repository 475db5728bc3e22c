package sctest

//go:generate go run github.com/edapp-go/edapp/internal/wiregen/cmd/wiregen -pkg sctest wire.shapes wire_gen.go

import "time"

// wt writes a time as the service does, "" when unset (the feeds' way).
func wt(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// wtp writes a time, null when unset (the camelCase endpoints' way).
func wtp(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := wt(t)
	return &s
}

type wireList[T any] struct {
	TotalCount int `json:"totalCount"`
	Items      []T `json:"items"`
}

type wireFeed[T any] struct {
	Metadata wireFeedMetadata `json:"metadata"`
	Data     []T              `json:"data"`
}
