package safetyculture

import (
	"context"
	"iter"
	"net/url"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/internal/ids"
)

// LeaderboardsService holds the individual leaderboard operations.
type LeaderboardsService service

// Leaderboard is an individual leaderboard.
type Leaderboard struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	StartDate     edapp.Time      `json:"startDate"`
	EndDate       edapp.Time      `json:"endDate"`
	LearnerAccess string          `json:"learnerAccess"`
	Extra         edapp.RawFields `json:"-"`
}

// Rankings are a leaderboard's participants, all in one answer.
type Rankings struct {
	LeaderboardID   string          `json:"leaderboardId"`
	LeaderboardName string          `json:"leaderboardName"`
	Rankings        []Ranking       `json:"rankings"`
	Extra           edapp.RawFields `json:"-"`
}

// Ranking is one participant's place on a leaderboard.
type Ranking struct {
	Rank            int             `json:"rank"`
	ParticipantID   string          `json:"participantId"`
	ParticipantName string          `json:"participantName"`
	TotalScore      float64         `json:"totalScore"`
	IsNotAttempted  bool            `json:"isNotAttempted"`
	Extra           edapp.RawFields `json:"-"`
}

func leaderboardKey(l Leaderboard) string { return l.ID }

// List returns one page of leaderboards.
//
// SafetyCulture API: GET /training/individualleaderboards/v1
func (s *LeaderboardsService) List(ctx context.Context, opts *edapp.ListOptions, reqOpts ...edapp.RequestOption) (*edapp.Page[Leaderboard], error) {
	return listPage[Leaderboard](ctx, s.client, ids.Fill(routeLeaderboards), opts, reqOpts)
}

// All iterates over every leaderboard.
//
// SafetyCulture API: GET /training/individualleaderboards/v1
func (s *LeaderboardsService) All(ctx context.Context, opts *edapp.ListOptions, reqOpts ...edapp.RequestOption) iter.Seq2[Leaderboard, error] {
	return all(ctx, s.client, ids.Fill(routeLeaderboards), opts, reqOpts, leaderboardKey)
}

// Rankings returns every participant of a leaderboard.
//
// SafetyCulture API: GET /training/individualleaderboards/v1/rankings
func (s *LeaderboardsService) Rankings(ctx context.Context, leaderboardID string, reqOpts ...edapp.RequestOption) (*Rankings, error) {
	if err := ids.Require("leaderboardID", leaderboardID); err != nil {
		return nil, err
	}
	out := new(Rankings)
	q := url.Values{"leaderboardId": {leaderboardID}}
	if err := s.client.get(ctx, ids.Fill(routeRankings), q, out, reqOpts); err != nil {
		return nil, err
	}
	return out, nil
}
