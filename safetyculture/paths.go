package safetyculture

import (
	"context"
	"iter"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/ids"
)

// PathsService holds the learning path operations.
type PathsService service

// LearningPath is a learning path: an ordered set of courses. Only id,
// title and isPublished have been seen; the rest is kept in Extra.
type LearningPath struct {
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	IsPublished bool            `json:"isPublished"`
	Extra       edapp.RawFields `json:"-"`
}

func pathKey(p LearningPath) string { return p.ID }

// List returns one page of learning paths.
//
// SafetyCulture API: GET /training/paths/v1
func (s *PathsService) List(ctx context.Context, opts *edapp.ListOptions, reqOpts ...edapp.RequestOption) (*edapp.Page[LearningPath], error) {
	return listPage[LearningPath](ctx, s.client, ids.Fill(routePaths), opts, reqOpts)
}

// All iterates over every learning path.
//
// SafetyCulture API: GET /training/paths/v1
func (s *PathsService) All(ctx context.Context, opts *edapp.ListOptions, reqOpts ...edapp.RequestOption) iter.Seq2[LearningPath, error] {
	return all(ctx, s.client, ids.Fill(routePaths), opts, reqOpts, pathKey)
}

// Get returns one learning path, sent bare or as {"path": {...}}.
//
// SafetyCulture API: GET /training/paths/v1/{pathId}
func (s *PathsService) Get(ctx context.Context, pathID string, reqOpts ...edapp.RequestOption) (*LearningPath, error) {
	return getOne[LearningPath](ctx, s.client, routePath, "pathID", pathID, "path", reqOpts)
}
