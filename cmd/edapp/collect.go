package main

import (
	"context"
	"iter"

	"github.com/edapp-go/edapp"
)

// readOpts are the request options of a bulk read whose pages report into
// resp: the bulk lane, which leaves part of the budget to interactive
// callers, and the answer's metadata.
func readOpts(resp *edapp.Response) []edapp.RequestOption {
	return []edapp.RequestOption{edapp.WithBulk(), edapp.WithResponseInto(resp)}
}

// collect gathers every item of seq, reporting on prog under name. resp is
// the Response that seq fills for each page (see readOpts).
func collect[T any](ctx context.Context, prog progress, name string, resp *edapp.Response, seq iter.Seq2[T, error]) ([]T, error) {
	t := prog.track(name)
	totalSet := false
	var out []T
	for v, err := range seq {
		if err != nil {
			t.done(err)
			return nil, err
		}
		// An iterator fills resp before each page's first item: Attempts
		// set means a page not seen yet.
		if resp.Attempts != 0 {
			if !totalSet && resp.TotalCount >= 0 {
				t.setTotal(resp.TotalCount)
				totalSet = true
			}
			t.add(0, resp.Waited)
			resp.Attempts = 0
		}
		out = append(out, v)
		t.add(1, 0)
	}
	t.done(nil)
	return out, ctx.Err()
}
