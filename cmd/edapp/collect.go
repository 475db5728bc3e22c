package main

import (
	"context"
	"iter"
)

// collect gathers every item of seq, reporting on prog under name.
func collect[T any](_ context.Context, prog progress, name string, seq iter.Seq2[T, error]) ([]T, error) {
	t := prog.track(name)
	var out []T
	for v, err := range seq {
		if err != nil {
			t.done(err)
			return nil, err
		}
		out = append(out, v)
		t.add(1, 0)
	}
	t.done(nil)
	return out, nil
}
