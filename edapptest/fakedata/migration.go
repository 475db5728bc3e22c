package fakedata

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/edapptest"
	"github.com/edapp-go/edapp/internal/opt"
	"github.com/edapp-go/edapp/safetyculture/sctest"
)

// Migration describes the account SeedMigration built: how the EdApp ids
// map onto the new ones, what was carried over, the planted differences
// and the activity that happened only after the move.
type Migration struct {
	// MovedAt is when the account moved: before the EdApp fake's clock and
	// the SafetyCulture fake's, by as much time as the activity after the
	// move needs (a second apart, five minutes after the move), and never
	// before the latest EdApp activity. That activity is dated after
	// MovedAt and never after the SafetyCulture fake's clock: when the
	// latest EdApp activity leaves too little room (a learner completed a
	// lesson just before), the SafetyCulture fake's clock moves on by what
	// is missing, a millisecond per record, and its answers' Date says so.
	MovedAt time.Time
	// Users, Groups, Courses and Lessons map EdApp ids to SafetyCulture
	// ids; Sites maps EdApp group ids to the sites that mirror the group
	// hierarchy.
	Users, Groups, Courses, Lessons, Sites map[string]string
	// NoEmail lists the EdApp users left behind because they have no
	// email, the one identity the migration carries.
	NoEmail []string
	// Carried lists the EdApp completions that arrived.
	Carried []Completion
	Planted Planted
	After   AfterMove
}

// Completion is one person's completion of one course, under both ids.
type Completion struct {
	EdAppUserID, EdAppCourseID string
	UserID, CourseID           string // SafetyCulture's
	CompletedAt                time.Time
}

// Planted lists the differences SeedMigration planted; all are empty with
// NoAnomalies.
type Planted struct {
	// ScoresDropped is every carried completion: it arrived with 100%, a
	// score of 0 and no lesson scores.
	ScoresDropped []Completion
	// MissingCompletions are EdApp completions that never arrived (about
	// one in fifty, at least one when there are two or more); UserID and
	// CourseID are where they would have been.
	MissingCompletions []Completion
	// Unmatched is a person with a completion who shares neither email
	// nor external id with their EdApp self. EmailChanged is another
	// person (one with an external id) whose email changed on the way, so
	// only the external id matches them.
	EmailChanged, Unmatched *PersonChange
	// CourseExternalID is the course whose external id differs.
	CourseExternalID *CourseChange
}

// PersonChange is one person under both ids, with what each service holds.
type PersonChange struct {
	EdAppUserID, UserID         string
	EdAppEmail, Email           string
	EdAppExternalID, ExternalID string
}

// CourseChange is one course under both ids with both external ids.
type CourseChange struct {
	EdAppCourseID, CourseID     string
	EdAppExternalID, ExternalID string
}

// AfterMove is the activity that happened only in SafetyCulture, dated
// after MovedAt. It is there with NoAnomalies too.
type AfterMove struct {
	NewCourseID string   // a course that exists only in SafetyCulture
	Completed   []string // users who completed the new course
	InProgress  []string // users who opened its first lesson only
	// Retakes are users who took a lesson of a course they had completed
	// in EdApp again, by "userID courseID".
	Retakes []string
	// Deactivated are users deactivated after the move (about one in
	// forty of those with no completion): the users feed leaves them out
	// unless include_inactive=true.
	Deactivated []string
	// PathID is a learning path through the first migrated course and
	// the new one; SurveyQuestionID a survey question on the new course
	// that those who completed it answered, as they answered the rapid
	// refresh RapidRefreshID. Each lesson of the new course has one slide,
	// with its statistics and those of each person who completed it.
	PathID, SurveyQuestionID, RapidRefreshID string
}

// MigrationOption configures SeedMigration. A bad value makes it fail
// with an error wrapping edapp.ErrInvalidInput, before it changes
// anything; a nil MigrationOption is skipped.
type MigrationOption func(*migrationConfig) error

type migrationConfig struct {
	seed        string
	noAnomalies bool
}

// NoAnomalies makes a faithful copy: no planted differences, and carried
// completions keep their score.
func NoAnomalies() MigrationOption {
	return func(c *migrationConfig) error { c.noAnomalies = true; return nil }
}

// WithMigrationSeed changes the new ids and which records the planted
// differences and the later activity pick; the default is "1". An empty
// seed is an error.
func WithMigrationSeed(seed string) MigrationOption {
	return func(c *migrationConfig) error {
		if seed == "" {
			return fmt.Errorf("fakedata: WithMigrationSeed: empty seed: %w", edapp.ErrInvalidInput)
		}
		c.seed = seed
		return nil
	}
}

// SeedMigration fills an empty SafetyCulture fake with the migrated copy
// of the EdApp fake's account, as SafetyCulture's migration carries it,
// through the fake's seeding methods:
//
//   - the same people (same email and external id; blank names become
//     "NA") under new ids, user_ and 32 hex digits, derived from the EdApp
//     ids; the first account admin (else the first user) owns the token;
//   - groups flattened (same names, direct members only), and sites that
//     mirror the group hierarchy (a group's direct members are the site's
//     members), plus one deleted site;
//   - courses, lessons and collections under new ids (24 hex digits),
//     external ids kept; group course assignments as group assignments;
//   - completions only (not progress short of one), dated as in EdApp, at
//     100%; each carried completion's lessons are completed with no score;
//   - the planted differences and the activity after the move that the
//     returned Migration lists.
//
// The same EdApp account and options give the same result. It fails with
// sctest.ErrConflict when the fake holds users already, and with an error
// wrapping edapp.ErrInvalidInput for a bad option value.
func SeedMigration(sc *sctest.Server, src *edapptest.Server, opts ...MigrationOption) (*Migration, error) {
	cfg := migrationConfig{seed: "1"}
	if err := opt.Apply(&cfg, opts); err != nil {
		return nil, err
	}
	if sc.UserCount() > 0 {
		return nil, fmt.Errorf("%w: SeedMigration needs an empty fake", sctest.ErrConflict)
	}
	snap := src.Snapshot()
	m := &migrator{cfg: cfg, snap: snap, sc: sc, now: sc.Now(), out: &Migration{MovedAt: snap.Now, Users: map[string]string{},
		Groups: map[string]string{}, Courses: map[string]string{}, Lessons: map[string]string{}, Sites: map[string]string{}},
		published: map[string][]string{}}
	if err := m.run(); err != nil {
		return nil, err
	}
	return m.out, nil
}

// migrator is one SeedMigration under way.
type migrator struct {
	cfg  migrationConfig
	snap edapptest.Snapshot
	sc   *sctest.Server
	now  time.Time // the SafetyCulture fake's clock
	out  *Migration
	// ahead is how far the fake's clock must move on for the activity
	// after the move (see afterMoveClock).
	ahead time.Duration
	// completions are the EdApp completions, in snapshot order.
	completions []edapptest.SnapshotProgress
	edappUsers  map[string]edapptest.SnapshotUser // by EdApp id
	users       []sctest.UserSpec                 // the people to copy, in order
	owner       string                            // who owns the token
	published   map[string][]string               // the published lessons of the copied courses
}

func (m *migrator) run() error {
	m.out.MovedAt = m.movedAt()
	m.edappUsers = map[string]edapptest.SnapshotUser{}
	for _, u := range m.snap.Users {
		m.edappUsers[u.ID] = u
	}
	for _, p := range m.snap.Progress {
		if !p.CompletedDateTime.Time.IsZero() {
			m.completions = append(m.completions, p)
		}
	}
	if !m.cfg.noAnomalies {
		m.plant()
	}
	m.planUsers()
	for _, step := range []func() error{m.addUsers, m.groupsAndSites, m.courses, m.carry, m.afterMove} {
		if err := step(); err != nil {
			return err
		}
	}
	m.sc.AdvanceClock(m.ahead)
	return nil
}

// key derives hex digits from the seed and parts, so every choice and id
// follows from the EdApp account and the seed alone.
func (m *migrator) key(n int, parts ...string) string {
	return derivedHex(n, append([]string{"migration", m.cfg.seed}, parts...)...)
}

// pick orders ids by their key for purpose, to choose among them.
func (m *migrator) pick(purpose string, ids []string) []string {
	keys := make(map[string]string, len(ids))
	for _, id := range ids {
		keys[id] = m.key(16, purpose, id)
	}
	out := slices.Clone(ids)
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(keys[a], keys[b]) })
	return out
}

// plant chooses the planted differences; the users, courses and carry
// steps apply them.
func (m *migrator) plant() {
	var people, courses, pairs []string
	seen := map[string]bool{}
	for _, p := range m.completions {
		if !seen[p.UserID] && m.edappUsers[p.UserID].Email != "" {
			people = append(people, p.UserID)
		}
		if !seen[p.CourseID] {
			courses = append(courses, p.CourseID)
		}
		seen[p.UserID], seen[p.CourseID] = true, true
		pairs = append(pairs, p.UserID+" "+p.CourseID)
	}
	if people = m.pick("unmatched", people); len(people) > 0 {
		m.out.Planted.Unmatched = &PersonChange{EdAppUserID: people[0]}
	}
	// The person whose email changes keeps an external id to be matched by.
	var withExt []string
	for _, u := range m.snap.Users {
		if u.Email != "" && u.ExternalID != "" && (len(people) == 0 || u.ID != people[0]) {
			withExt = append(withExt, u.ID)
		}
	}
	if len(withExt) > 0 {
		m.out.Planted.EmailChanged = &PersonChange{EdAppUserID: m.pick("email", withExt)[0]}
	}
	if len(courses) > 0 {
		m.out.Planted.CourseExternalID = &CourseChange{EdAppCourseID: m.pick("course", courses)[0]}
	}
	if n := len(pairs); n > 1 { // one completion of fifty, but never the only one
		for _, pair := range m.pick("missing", pairs)[:max(1, (n+25)/50)] {
			u, c, _ := strings.Cut(pair, " ")
			m.out.Planted.MissingCompletions = append(m.out.Planted.MissingCompletions, Completion{EdAppUserID: u, EdAppCourseID: c})
		}
	}
}
