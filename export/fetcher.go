package export

import (
	"context"
	"sync"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture"
)

// fetcher reads the service for the kinds.
type fetcher struct {
	c           *edapp.Client         // EdApp's kinds
	sc          *safetyculture.Client // SafetyCulture's kinds
	pool        *pool
	concurrency int
	pageSize    int

	// What the kinds that list parents learned, for the kinds that need
	// it: each is set once by its kind, or found missing (nil, or set not
	// ok) when that kind is not part of the run or did not walk it all.
	users       *shared[[]userRef]
	groups      *shared[[]groupRef]
	collections *shared[[]string]
	courses     *shared[[]string]
}

func newFetcher(c *edapp.Client, opts Options, ks []Kind) *fetcher {
	x := &fetcher{c: c, pool: newPool(opts.Concurrency), concurrency: opts.Concurrency, pageSize: opts.PageSize}
	for _, k := range ks {
		switch k.Name {
		case "users":
			x.users = newShared[[]userRef]()
		case "groups":
			x.groups = newShared[[]groupRef]()
		case "collections":
			x.collections = newShared[[]string]()
		case "courses":
			x.courses = newShared[[]string]()
		}
	}
	return x
}

// settle tells the kinds waiting on kind that it provides nothing more:
// a kind that failed, or that was not fetched, leaves them to list the
// parents themselves.
func (x *fetcher) settle(kind string) {
	switch kind {
	case "users":
		x.users.set(nil, false)
	case "groups":
		x.groups.set(nil, false)
	case "collections":
		x.collections.set(nil, false)
	case "courses":
		x.courses.set(nil, false)
	}
}

// userRef is what group_members needs of a user.
type userRef struct {
	id, externalID string
	groups         []string
}

// groupRef is what group_children needs of a group.
type groupRef struct {
	id          string
	hasChildren bool
}

// shared is a value one kind provides to others of the same run.
type shared[T any] struct {
	once sync.Once
	done chan struct{}
	v    T
	ok   bool
}

func newShared[T any]() *shared[T] { return &shared[T]{done: make(chan struct{})} }

// set provides v; ok false says the kind did not see everything (an
// error, or a walk resumed in the middle). Only the first call counts.
func (c *shared[T]) set(v T, ok bool) {
	if c == nil {
		return
	}
	c.once.Do(func() {
		c.v, c.ok = v, ok
		close(c.done)
	})
}

// get waits for the value; false when there is none to wait for.
func (c *shared[T]) get(ctx context.Context) (T, bool, error) {
	var zero T
	if c == nil {
		return zero, false, nil
	}
	select {
	case <-c.done:
		return c.v, c.ok, nil
	case <-ctx.Done():
		return zero, false, ctx.Err()
	}
}

// parents returns what c provides, waiting for its kind, and walks the
// list itself (its requests counted to s) when c provides nothing.
func parents[T, V any](ctx context.Context, x *fetcher, s *stream, c *shared[[]V], list func(o []edapp.RequestOption) seqOf[T], ref func(T) V) ([]V, error) {
	v, ok, err := c.get(ctx)
	if err != nil || ok {
		return v, err
	}
	var out []V
	w, err := x.walker(ctx, s)
	if err != nil {
		return nil, err
	}
	err = each(w, list(w.opts), func(t T) error { out = append(out, ref(t)); return nil })
	return out, err
}

func (x *fetcher) usersOf(ctx context.Context, s *stream) ([]userRef, error) {
	return parents(ctx, x, s, x.users, func(o []edapp.RequestOption) seqOf[edapp.User] {
		return x.c.Users.All(ctx, &edapp.UserListOptions{ListOptions: x.listOptions(Plan{})}, o...)
	}, func(u edapp.User) userRef { return userRef{u.ID, u.ExternalID, u.UserGroups} })
}

func (x *fetcher) groupsOf(ctx context.Context, s *stream) ([]groupRef, error) {
	return parents(ctx, x, s, x.groups, func(o []edapp.RequestOption) seqOf[edapp.UserGroup] {
		return x.c.UserGroups.All(ctx, x.listOpts(), o...)
	}, func(g edapp.UserGroup) groupRef { return groupRef{g.ID, g.HasChildren} })
}

func (x *fetcher) collectionsOf(ctx context.Context, s *stream) ([]string, error) {
	return parents(ctx, x, s, x.collections, func(o []edapp.RequestOption) seqOf[edapp.CourseCollection] {
		return x.c.Catalog.AllCollections(ctx, x.listOpts(), o...)
	}, func(c edapp.CourseCollection) string { return c.ID })
}

func (x *fetcher) coursesOf(ctx context.Context, s *stream) ([]string, error) {
	return parents(ctx, x, s, x.courses, func(o []edapp.RequestOption) seqOf[edapp.Course] {
		return x.c.Catalog.AllCourses(ctx, x.listOpts(), o...)
	}, func(c edapp.Course) string { return c.ID })
}

// userIDs lists the account's users for the per-user kinds.
func (x *fetcher) userIDs(ctx context.Context, s *stream) ([]string, error) {
	users, err := x.usersOf(ctx, s)
	ids := make([]string, len(users))
	for i, u := range users {
		ids[i] = u.id
	}
	return ids, err
}

// fanOut runs fn for each parent id, concurrency at a time, reporting the
// parents done on s. The first error cancels the others and is returned.
// Each fn takes its requests' slots from the pool.
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
	users, err := x.userIDs(ctx, s)
	if err != nil {
		return err
	}
	return x.fanOut(ctx, s, users, fn)
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
