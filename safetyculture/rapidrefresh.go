package safetyculture

import (
	"context"
	"iter"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/ids"
)

// RapidRefreshService holds the rapid refresh operations.
type RapidRefreshService service

// RapidRefresh is a rapid refresh quiz. Its fields were not seen; the SDK
// reads id and title, and keeps the rest in Extra.
type RapidRefresh struct {
	ID    string          `json:"id"`
	Title string          `json:"title"`
	Extra edapp.RawFields `json:"-"`
}

func rapidRefreshKey(r RapidRefresh) string { return r.ID }

// List returns one page of rapid refreshes.
//
// SafetyCulture API: GET /training/rapid-refresh/v1
func (s *RapidRefreshService) List(ctx context.Context, opts *edapp.ListOptions, reqOpts ...edapp.RequestOption) (*edapp.Page[RapidRefresh], error) {
	return listPage[RapidRefresh](ctx, s.client, ids.Fill(routeRapidRefreshes), opts, reqOpts)
}

// All iterates over every rapid refresh.
//
// SafetyCulture API: GET /training/rapid-refresh/v1
func (s *RapidRefreshService) All(ctx context.Context, opts *edapp.ListOptions, reqOpts ...edapp.RequestOption) iter.Seq2[RapidRefresh, error] {
	return all(ctx, s.client, ids.Fill(routeRapidRefreshes), opts, reqOpts, rapidRefreshKey)
}

// Get returns one rapid refresh, sent bare or as {"rapidRefresh": {...}}.
//
// SafetyCulture API: GET /training/rapid-refresh/v1/{rapidRefreshId}
func (s *RapidRefreshService) Get(ctx context.Context, rapidRefreshID string, reqOpts ...edapp.RequestOption) (*RapidRefresh, error) {
	return getOne[RapidRefresh](ctx, s.client, routeRapidRefresh, "rapidRefreshID", rapidRefreshID, "rapidRefresh", reqOpts)
}
