package sctest

//go:generate go run github.com/edapp-go/edapp/internal/wiregen/cmd/wiregen -pkg sctest wire.shapes wire_gen.go

import "time"

// The fake's own wire types are generated from wire.shapes into
// wire_gen.go; the generic ones and the helpers are here.

const wireTimeLayout = "2006-01-02T15:04:05.000Z"

// wt writes a time as the service does, "" when unset (the feeds' way).
func wt(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(wireTimeLayout)
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

// Feeds.

type wireFeed[T any] struct {
	Metadata wireFeedMetadata `json:"metadata"`
	Data     []T              `json:"data"`
}

func (p wireProgress) camel() wireProgressCamel { return wireProgressCamel(p) }
