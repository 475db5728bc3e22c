package export

import (
	"context"
	"iter"
	"sync"

	"github.com/edapp-go/edapp"
)

// fetcher reads the service for the kinds.
type fetcher struct {
	c           *edapp.Client
	concurrency int
	pageSize    int

	// ids cached by the kinds that list them, for the per-parent kinds.
	userIDs, groupIDs, collectionIDs, courseIDs []string
}

func idsOf[T any](seq iter.Seq2[T, error], id func(T) string) ([]string, error) {
	var out []string
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, id(v))
	}
	return out, nil
}

// ids returns *cache when a kind earlier in the run filled it, and lists
// the ids otherwise.
func (x *fetcher) ids(ctx context.Context, cache *[]string, list func(context.Context) ([]string, error)) ([]string, error) {
	if *cache != nil {
		return *cache, nil
	}
	ids, err := list(ctx)
	if err != nil {
		return nil, err
	}
	*cache = ids
	return ids, nil
}

// fanOut runs fn for each parent id, concurrency at a time, reporting the
// parents done on s. The first error cancels the others and is returned.
func (x *fetcher) fanOut(ctx context.Context, s *stream, parents []string, fn func(context.Context, string) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	sem := make(chan struct{}, x.concurrency)
	s.parentDone(0, len(parents))
	for _, id := range parents {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := fn(ctx, id); err != nil {
				once.Do(func() { first = err; cancel(err) })
				return
			}
			s.parentDone(1, len(parents))
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// perUser runs fn for each user of the account.
func (x *fetcher) perUser(ctx context.Context, s *stream, fn func(context.Context, string) error) error {
	users, err := x.ids(ctx, &x.userIDs, func(ctx context.Context) ([]string, error) {
		return idsOf(x.c.Users.All(ctx, &edapp.UserListOptions{ListOptions: x.listOptions(Plan{})}, x.opts(nil)...), func(u edapp.User) string { return u.ID })
	})
	if err != nil {
		return err
	}
	return x.fanOut(ctx, s, users, fn)
}

// opts are the request options of every read: the bulk lane, pages in
// parallel, and the answer's metadata into resp (when not nil).
func (x *fetcher) opts(resp *edapp.Response) []edapp.RequestOption {
	o := []edapp.RequestOption{edapp.WithBulk(), edapp.WithPageConcurrency(x.concurrency)}
	if resp != nil {
		o = append(o, edapp.WithResponseInto(resp))
	}
	return o
}

// pageSize is the list options of a walk from p's page.
func (x *fetcher) listOptions(p Plan) edapp.ListOptions {
	return edapp.ListOptions{PageSize: x.pageSize, Page: max(p.Page, 1)}
}

func (x *fetcher) listOpts() *edapp.ListOptions { return x.listFrom(Plan{}) }

func (x *fetcher) listFrom(p Plan) *edapp.ListOptions {
	o := x.listOptions(p)
	return &o
}
