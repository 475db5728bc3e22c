// Package edappsrc is EdApp as a source of the export: its kinds of
// record, read through an *edapp.Client.
//
//	sum, err := export.Run(ctx, edappsrc.New(client), export.Options{}, dest)
package edappsrc

import (
	"context"
	"slices"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/internal/sdkwalk"
)

// Name is EdApp's source name, as destinations record it.
const Name = "edapp"

// Source is EdApp as an export.Source.
type Source struct {
	c *edapp.Client
}

// New is the EdApp account c reads, as a source of export.Run.
func New(c *edapp.Client) *Source { return &Source{c: c} }

// Name is "edapp".
func (src *Source) Name() string { return Name }

// Kinds returns every kind, in the order an export runs them, fetched
// with the source's client.
func (src *Source) Kinds() []export.Kind {
	out := make([]export.Kind, len(kinds))
	for i, k := range kinds {
		out[i] = k.Kind
		out[i].Fetch = func(ctx context.Context, f *export.Fetch) error { return k.fetch(ctx, src, f) }
	}
	return out
}

// Kinds describes EdApp's kinds, in the order an export runs them: their
// names, columns and modes. Only New's can be fetched.
func Kinds() []export.Kind { return New(nil).Kinds() }

var _ export.Source = (*Source)(nil)

// userRef is what group_members and the per-user kinds need of a user.
type userRef struct {
	id, externalID string
	groups         []string
}

// groupRef is what group_children needs of a group.
type groupRef struct {
	id          string
	hasChildren bool
}

// walk walks one single list of the kind, emitting every item.
func walk[T any](ctx context.Context, f *export.Fetch, seq func(o []edapp.RequestOption) sdkwalk.Seq[T]) error {
	w, err := sdkwalk.Start(ctx, f)
	if err != nil {
		return err
	}
	return sdkwalk.Each(w, seq(w.Opts), nil)
}

func fetchUsers(ctx context.Context, src *Source, f *export.Fetch) error {
	var refs []userRef
	err := sdkwalk.List(ctx, f, src.allUsers(ctx, list(f, f.Plan())), func(u edapp.User) { refs = append(refs, refOfUser(u)) })
	export.Share(f, refs, err == nil && f.Plan().Page <= 1)
	return err
}

func (src *Source) allUsers(ctx context.Context, o edapp.ListOptions) func(o []edapp.RequestOption) sdkwalk.Seq[edapp.User] {
	return func(ro []edapp.RequestOption) sdkwalk.Seq[edapp.User] {
		return src.c.Users.All(ctx, &edapp.UserListOptions{ListOptions: o}, ro...)
	}
}

func refOfUser(u edapp.User) userRef { return userRef{u.ID, u.ExternalID, u.UserGroups} }

func fetchGroups(ctx context.Context, src *Source, f *export.Fetch) error {
	var refs []groupRef
	p := f.Plan()
	err := sdkwalk.List(ctx, f, func(o []edapp.RequestOption) sdkwalk.Seq[edapp.UserGroup] {
		lo := list(f, p)
		return src.c.UserGroups.All(ctx, &lo, o...)
	}, func(g edapp.UserGroup) { refs = append(refs, groupRef{g.ID, g.HasChildren}) })
	export.Share(f, refs, err == nil && p.Page <= 1)
	return err
}

func fetchCollections(ctx context.Context, src *Source, f *export.Fetch) error {
	var ids []string
	p := f.Plan()
	err := sdkwalk.List(ctx, f, func(o []edapp.RequestOption) sdkwalk.Seq[edapp.CourseCollection] {
		lo := list(f, p)
		return src.c.Catalog.AllCollections(ctx, &lo, o...)
	}, func(c edapp.CourseCollection) { ids = append(ids, c.ID) })
	export.Share(f, ids, err == nil && p.Page <= 1)
	return err
}

func fetchCourses(ctx context.Context, src *Source, f *export.Fetch) error {
	var ids []string
	p := f.Plan()
	err := sdkwalk.List(ctx, f, func(o []edapp.RequestOption) sdkwalk.Seq[edapp.Course] {
		lo := list(f, p)
		return src.c.Catalog.AllCourses(ctx, &lo, o...)
	}, func(c edapp.Course) { ids = append(ids, c.ID) })
	export.Share(f, ids, err == nil && p.Page <= 1)
	return err
}

// usersOf is the users of the run's users walk, or of one of its own.
func usersOf(ctx context.Context, src *Source, f *export.Fetch) ([]userRef, error) {
	return sdkwalk.Parents(ctx, f, "users", src.allUsers(ctx, list(f, export.Plan{})), refOfUser)
}

func fetchGroupMembers(ctx context.Context, src *Source, f *export.Fetch) error {
	users, err := usersOf(ctx, src, f)
	if err != nil {
		return err
	}
	for _, u := range users {
		for i, g := range u.groups {
			if g == "" || slices.Contains(u.groups[:i], g) {
				continue
			}
			if err := export.Emit(f, memberRow{g, u.id, u.externalID}); err != nil {
				return err
			}
		}
	}
	return nil
}

func fetchGroupChildren(ctx context.Context, src *Source, f *export.Fetch) error {
	groups, err := sdkwalk.Parents(ctx, f, "groups", func(o []edapp.RequestOption) sdkwalk.Seq[edapp.UserGroup] {
		return src.c.UserGroups.All(ctx, fromStart(f), o...)
	}, func(g edapp.UserGroup) groupRef { return groupRef{g.ID, g.HasChildren} })
	if err != nil {
		return err
	}
	var parents []string
	for _, g := range groups {
		if g.hasChildren {
			parents = append(parents, g.id)
		}
	}
	return sdkwalk.PerParent(ctx, f, parents, func(ctx context.Context, id string, o []edapp.RequestOption) sdkwalk.Seq[edapp.UserGroup] {
		return src.c.UserGroups.AllChildren(ctx, id, fromStart(f), o...)
	}, func(id string, g edapp.UserGroup) childRow { return childRow{id, g.ID} })
}

func fetchCollectionCourses(ctx context.Context, src *Source, f *export.Fetch) error {
	cols, err := sdkwalk.Parents(ctx, f, "collections", func(o []edapp.RequestOption) sdkwalk.Seq[edapp.CourseCollection] {
		return src.c.Catalog.AllCollections(ctx, fromStart(f), o...)
	}, func(c edapp.CourseCollection) string { return c.ID })
	if err != nil {
		return err
	}
	return sdkwalk.PerParent(ctx, f, cols, func(ctx context.Context, id string, o []edapp.RequestOption) sdkwalk.Seq[edapp.Course] {
		return src.c.Catalog.AllCollectionCourses(ctx, id, fromStart(f), o...)
	}, func(id string, c edapp.Course) collectionCourseRow { return collectionCourseRow{id, c.ID} })
}

func fetchLessons(ctx context.Context, src *Source, f *export.Fetch) error {
	courses, err := sdkwalk.Parents(ctx, f, "courses", func(o []edapp.RequestOption) sdkwalk.Seq[edapp.Course] {
		return src.c.Catalog.AllCourses(ctx, fromStart(f), o...)
	}, func(c edapp.Course) string { return c.ID })
	if err != nil {
		return err
	}
	return sdkwalk.OneEach(ctx, f, courses, src.c.Catalog.Lessons, func(_ string, l edapp.Lesson) edapp.Lesson { return l })
}

// perUser walks, for each user of the account, the list seq makes of it.
func perUser[T any](ctx context.Context, src *Source, f *export.Fetch, seq func(ctx context.Context, userID string, o []edapp.RequestOption) sdkwalk.Seq[T]) error {
	users, err := usersOf(ctx, src, f)
	if err != nil {
		return err
	}
	ids := sdkwalk.IDs(users, func(u userRef) string { return u.id })
	return sdkwalk.PerParent(ctx, f, ids, seq, func(_ string, v T) T { return v })
}
