package sqldest

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/export/dbschema"
)

// ReportSchemaVersion is the version of the move report's JSON shape
// (Report.SchemaVersion).
const ReportSchemaVersion = 1

// The categories of the differences a move report finds, in the order it
// lists them.
const (
	CategoryIdentityConflict            = "identity_conflict"
	CategoryPersonEdAppOnly             = "person_edapp_only"
	CategoryPersonSafetyCultureOnly     = "person_safetyculture_only"
	CategoryEmailChanged                = "email_changed"
	CategoryProbableSamePerson          = "probable_same_person"
	CategoryCourseEdAppOnly             = "course_edapp_only"
	CategoryCourseSafetyCultureOnly     = "course_safetyculture_only"
	CategoryCourseMatchedByTitle        = "course_matched_by_title"
	CategoryCompletionMissing           = "completion_missing"
	CategoryCompletionDateChanged       = "completion_date_changed"
	CategoryScoreLost                   = "score_lost"
	CategoryCompletionSafetyCultureOnly = "completion_safetyculture_only"
	CategoryCompletedAfterMove          = "completed_after_move"
)

// Categories are the move report's categories, in the order it lists
// them.
func Categories() []string {
	return []string{CategoryIdentityConflict, CategoryPersonEdAppOnly, CategoryPersonSafetyCultureOnly, CategoryEmailChanged,
		CategoryProbableSamePerson, CategoryCourseEdAppOnly, CategoryCourseSafetyCultureOnly, CategoryCourseMatchedByTitle,
		CategoryCompletionMissing, CategoryCompletionDateChanged, CategoryScoreLost, CategoryCompletionSafetyCultureOnly,
		CategoryCompletedAfterMove}
}

// IsLoss reports whether a difference of category is something the move
// lost or changed: every category but CategoryCompletedAfterMove.
func IsLoss(category string) bool { return category != CategoryCompletedAfterMove }

var (
	// ErrNotExported is returned by MigrationReport for a database one of
	// the sources was never exported into.
	ErrNotExported = errors.New("never exported into this database")
	// ErrIdentitiesStale is returned by MigrationReport for a database
	// below dbschema.IdentityPairsVersion, or whose identities no export
	// of this version has rebuilt since what they are built from changed.
	ErrIdentitiesStale = errors.New("identities not rebuilt by this version")
)

// Report is a move report (MigrationReport); its JSON is the report's
// documented shape, version ReportSchemaVersion. Unknown values are nil
// (JSON null), never zero.
type Report struct {
	SchemaVersion int                    `json:"schema_version"`
	GeneratedAt   time.Time              `json:"generated_at"`
	MovedAt       *time.Time             `json:"moved_at"`
	Totals        ReportTotals           `json:"totals"`
	Courses       []CourseReconciliation `json:"courses"`
	Differences   []Difference           `json:"differences"`
}

// ReportTotals counts people, courses and completions. People and
// Courses partition the identities of their kind (ProbableSamePerson
// aside, which counts pairs also counted as EdAppOnly and
// SafetyCultureOnly); Completions.EdApp = Carried + Missing.
type ReportTotals struct {
	People      PeopleTotals     `json:"people"`
	Courses     CourseTotals     `json:"courses"`
	Completions CompletionTotals `json:"completions"`
}

// PeopleTotals counts the people of identities by what the move did to
// them.
type PeopleTotals struct {
	Matched            int `json:"matched"`
	EdAppOnly          int `json:"edapp_only"`
	SafetyCultureOnly  int `json:"safetyculture_only"`
	EmailChanged       int `json:"email_changed"`
	ProbableSamePerson int `json:"probable_same_person"`
	IdentityConflict   int `json:"identity_conflict"`
}

// CourseTotals counts the courses of identities likewise.
type CourseTotals struct {
	Matched           int `json:"matched"`
	MatchedByTitle    int `json:"matched_by_title"`
	EdAppOnly         int `json:"edapp_only"`
	SafetyCultureOnly int `json:"safetyculture_only"`
	IdentityConflict  int `json:"identity_conflict"`
}

// CompletionTotals counts completed courses: EdApp's, each carried or
// missing, the carried ones whose date changed or score was lost, and
// SafetyCulture's with no EdApp counterpart.
type CompletionTotals struct {
	EdApp              int `json:"edapp"`
	Carried            int `json:"carried"`
	Missing            int `json:"missing"`
	DateChanged        int `json:"date_changed"`
	ScoreLost          int `json:"score_lost"`
	CompletedAfterMove int `json:"completed_after_move"`
	SafetyCultureOnly  int `json:"safetyculture_only"`
}

// CourseReconciliation is one course's completions: EdAppCompletions =
// Carried + Missing. SafetyCultureCompletions counts every completion of
// the course SafetyCulture holds.
type CourseReconciliation struct {
	EdAppID                  *string `json:"edapp_id"`
	SafetyCultureID          *string `json:"safetyculture_id"`
	Title                    *string `json:"title"`
	EdAppCompletions         int     `json:"edapp_completions"`
	Carried                  int     `json:"carried"`
	Missing                  int     `json:"missing"`
	SafetyCultureCompletions int     `json:"safetyculture_completions"`
}

// Difference is one thing the move changed or lost. Person and Course are
// set where the category concerns them; EdApp and SafetyCulture where it
// concerns a completion. Cause is set on a CategoryCompletionMissing
// whose person or course has no match (CategoryPersonEdAppOnly,
// CategoryCourseEdAppOnly or CategoryIdentityConflict).
type Difference struct {
	Category      string          `json:"category"`
	Cause         *string         `json:"cause"`
	Person        *ReportPerson   `json:"person"`
	Course        *ReportCourse   `json:"course"`
	EdApp         *ReportProgress `json:"edapp"`
	SafetyCulture *ReportProgress `json:"safetyculture"`
}

// ReportPerson is a person as each service holds them.
type ReportPerson struct {
	EdAppID            *string `json:"edapp_id"`
	SafetyCultureID    *string `json:"safetyculture_id"`
	EdAppEmail         *string `json:"edapp_email"`
	SafetyCultureEmail *string `json:"safetyculture_email"`
	FirstName          *string `json:"first_name"`
	LastName           *string `json:"last_name"`
	// Left is whether the person is gone from the users of a service that
	// held them, known from users_history only (a database at
	// dbschema.HistoryVersion or later; below it, always false).
	Left bool `json:"left"`
}

// ReportCourse is a course as each service holds it.
type ReportCourse struct {
	EdAppID                 *string `json:"edapp_id"`
	SafetyCultureID         *string `json:"safetyculture_id"`
	Title                   *string `json:"title"`
	EdAppExternalID         *string `json:"edapp_external_id"`
	SafetyCultureExternalID *string `json:"safetyculture_external_id"`
}

// ReportProgress is one service's completion of a course.
type ReportProgress struct {
	CompletedAt *time.Time `json:"completed_at"`
	Score       *float64   `json:"score"`
}

// ReportOption configures MigrationReport.
type ReportOption func(*reportConfig)

type reportConfig struct {
	movedAt time.Time
	nfc     Normalizer
	now     func() time.Time
	err     error
}

// WithMovedAt sets the move's time: a SafetyCulture completion with no
// EdApp counterpart dated after it is CategoryCompletedAfterMove. The
// default is the latest EdApp activity in the database. A zero time is
// an error wrapping edapp.ErrInvalidInput.
func WithMovedAt(t time.Time) ReportOption {
	return func(c *reportConfig) {
		if t.IsZero() {
			c.err = cmp.Or(c.err, fmt.Errorf("export: %w: WithMovedAt: zero time", edapp.ErrInvalidInput))
		}
		c.movedAt = t.UTC()
	}
}

// WithReportNormalizer sets the Normalizer names are brought to NFC with
// before they are compared (CategoryProbableSamePerson); without it they
// are compared as held. A nil Normalizer is an error wrapping
// edapp.ErrInvalidInput.
func WithReportNormalizer(n Normalizer) ReportOption {
	return func(c *reportConfig) {
		if n == nil {
			c.err = cmp.Or(c.err, fmt.Errorf("export: %w: WithReportNormalizer(nil)", edapp.ErrInvalidInput))
			return
		}
		c.nfc = n
	}
}

// Querier runs queries: a *sql.DB, *sql.Conn or *sql.Tx. MigrationReport
// is given a read-only transaction by a caller that can open one.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// MigrationReport compares what db holds of both sources and says what
// the move changed or lost, under the categories of Categories, with
// totals per course and in all that add up. It only reads. A source
// never exported into db is an error wrapping ErrNotExported that names
// it; a database whose identities this version has not rebuilt, one
// wrapping ErrIdentitiesStale.
func MigrationReport(ctx context.Context, db Querier, opts ...ReportOption) (*Report, error) {
	cfg := reportConfig{nfc: asHeld, now: time.Now}
	applyOptions(&cfg, opts)
	if cfg.err != nil {
		return nil, cfg.err
	}
	version, err := reportReady(ctx, db)
	if err != nil {
		return nil, err
	}
	in, err := readReportInput(ctx, db, cfg, version >= dbschema.HistoryVersion)
	if err != nil {
		return nil, err
	}
	r := &Report{SchemaVersion: ReportSchemaVersion, GeneratedAt: cfg.now().UTC().Truncate(time.Second), Courses: []CourseReconciliation{}}
	if !in.movedAt.IsZero() {
		r.MovedAt = &in.movedAt
	}
	b := reportBuilder{Report: r, in: in, nfc: cfg.nfc}
	b.people()
	b.courses()
	b.completions()
	b.finish()
	return r, nil
}

// reportReady refuses a database the report cannot read truthfully; it
// returns the database's schema version.
func reportReady(ctx context.Context, db Querier) (int, error) {
	var version int
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM edapp_schema`).Scan(&version); err != nil {
		return 0, fmt.Errorf("schema version: %w", err)
	}
	if version < dbschema.IdentityPairsVersion {
		return 0, fmt.Errorf("schema version %d, the report needs %d: %w", version, dbschema.IdentityPairsVersion, ErrIdentitiesStale)
	}
	return version, sourcesReady(ctx, db)
}

// sourcesReady refuses a database a source was never exported into, or
// whose identities are older than what they are built from.
func sourcesReady(ctx context.Context, db Querier) error {
	var missing []string
	for _, s := range []string{SourceEdApp, SourceSafetyCulture} {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM edapp_export_kinds WHERE source = '`+s+`' AND completed_at IS NOT NULL`).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: %w", strings.Join(missing, " and "), ErrNotExported)
	}
	var stale int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM edapp_export_kinds WHERE identities_changed IS NOT FALSE`).Scan(&stale); err != nil {
		return err
	}
	if stale > 0 {
		return fmt.Errorf("%d kinds changed since identities were rebuilt: %w", stale, ErrIdentitiesStale)
	}
	return nil
}
