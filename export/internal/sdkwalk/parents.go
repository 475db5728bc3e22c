package sdkwalk

import (
	"context"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export"
)

// Parents returns what kind shared in the run (export.Shared), waiting
// for it, and walks the list itself (its requests counted to f) when kind
// shares nothing.
func Parents[T, V any](ctx context.Context, f *export.Fetch, kind string, list func(o []edapp.RequestOption) Seq[T], ref func(T) V) ([]V, error) {
	v, ok, err := export.Shared[[]V](ctx, f, kind)
	if err != nil || ok {
		return v, err
	}
	var out []V
	w, err := Start(ctx, f)
	if err != nil {
		return nil, err
	}
	err = Each(w, list(w.Opts), func(t T) error { out = append(out, ref(t)); return nil })
	return out, err
}

// IDs is the ids of refs, as id reads them.
func IDs[V any](refs []V, id func(V) string) []string {
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = id(r)
	}
	return ids
}
