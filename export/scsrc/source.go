// Package scsrc is SafetyCulture Training as a source of the export: its
// kinds of record, read through a *safetyculture.Client.
//
//	sum, err := export.Run(ctx, scsrc.New(sc), export.Options{}, dest)
//
// A database destination must be opened for the source
// (WithSource("safetyculture")): EdApp's rows in the same tables are then
// left as they are.
//
// Course progress is probed once per run: the feed is asked for the rows
// modified after a time a day ahead. No rows: the service honours
// modifiedAfter, and the kind is fetched from its cursor minus the
// overlap, in full every MaxAge (export.DefaultMirrorAge when 0). Rows:
// it ignores it, and the kind is fetched in full and mirrored each run.
// Every status is asked for, never completed only.
package scsrc

import (
	"context"
	"time"

	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/safetyculture"
)

// Name is SafetyCulture's source name, as destinations record it.
const Name = "safetyculture"

// Source is SafetyCulture Training as an export.Source.
type Source struct {
	c *safetyculture.Client
}

// New is the SafetyCulture organisation c reads, as a source of
// export.Run.
func New(c *safetyculture.Client) *Source { return &Source{c: c} }

// Name is "safetyculture".
func (src *Source) Name() string { return Name }

// Kinds returns SafetyCulture Training's kinds, in the order an export
// runs them, fetched with the source's client.
func (src *Source) Kinds() []export.Kind {
	out := make([]export.Kind, len(scKinds))
	for i, k := range scKinds {
		out[i] = k.Kind
		out[i].Fetch = func(ctx context.Context, f *export.Fetch) error { return k.fetch(ctx, src, f) }
		if k.probe != nil {
			out[i].Probe = func(ctx context.Context, f *export.Fetch) (bool, time.Duration, error) { return k.probe(ctx, src, f) }
		}
	}
	return out
}

// Kinds describes SafetyCulture's kinds, in the order an export runs
// them: their names, columns and modes. Only New's can be fetched.
func Kinds() []export.Kind { return New(nil).Kinds() }

var _ export.Source = (*Source)(nil)

// kind is one of SafetyCulture's kinds, and how it is fetched with a
// Source's client; probe for a Remirror kind.
type kind struct {
	export.Kind
	fetch func(ctx context.Context, src *Source, f *export.Fetch) error
	probe func(ctx context.Context, src *Source, f *export.Fetch) (honoured bool, waited time.Duration, err error)
}
