package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/edapp-go/edapp/export/sqldest"
	"github.com/spf13/cobra"
	"golang.org/x/text/unicode/norm"
)

// newCmdMigrate makes `edapp migrate`, the commands of a move from EdApp
// to SafetyCulture Training.
func newCmdMigrate(f *factory) *cobra.Command {
	cmd := groupCommand("migrate", "Check a move from EdApp to SafetyCulture Training", "  edapp migrate report --db sqlite:training.db")
	cmd.AddCommand(newCmdMigrateReport(f, nil))
	return cmd
}

// migrateReportOptions are what `edapp migrate report` builds on, from
// the factory, and what its flags parsed to.
type migrateReportOptions struct {
	IO  *ioStreams
	Env func(string) string
	// OpenReadOnly opens the --db database for reading only; warn takes
	// its warnings.
	OpenReadOnly func(ctx context.Context, raw string, warn io.Writer) (*readOnlyDB, error)

	db                string
	format            string
	out               string
	movedAt           time.Time
	failOnDifferences bool
}

// reportFormats are -o's values; the default is table on a terminal,
// json otherwise.
var reportFormats = []string{"table", "json", "csv", "html"}

// migrateReportHelp is the long help of edapp migrate report.
const migrateReportHelp = `report reads a database that both "edapp export" and "edapp export --source
safetyculture" wrote, and changes nothing in it (SQLite is opened read-only,
PostgreSQL in a read-only transaction; no request is sent). It counts people,
courses and completions, reconciles each course's EdApp completions as carried
or missing, and lists every difference under its category: identity_conflict,
person_edapp_only, person_safetyculture_only, email_changed,
probable_same_person, course_edapp_only, course_safetyculture_only,
course_matched_by_title, completion_missing, completion_date_changed,
score_lost, completion_safetyculture_only and completed_after_move.

It exits 0 whatever it found (1 with --fail-on-differences when it found any
difference but completed_after_move), 1 when either source was never exported
into the database, and 2 when the database does not exist or no export of
this version has rebuilt its identities.`

// newCmdMigrateReport makes `edapp migrate report`; runF, when not nil,
// runs instead with the options the flags parsed to.
func newCmdMigrateReport(f *factory, runF func(*migrateReportOptions) error) *cobra.Command {
	o := &migrateReportOptions{IO: f.IO, Env: f.Env, OpenReadOnly: openReadOnly}
	var movedAt string
	cmd := &cobra.Command{
		Use:   "report --db URL [-o table|json|csv|html] [--out FILE] [--moved-at TIME] [--fail-on-differences]",
		Short: "Say what the move to SafetyCulture carried, changed and lost, from a database both were exported into",
		Long:  migrateReportHelp,
		Example: `  edapp migrate report --db sqlite:training.db
  edapp migrate report --db sqlite:training.db -o json > report.json
  edapp migrate report --db sqlite:training.db -o html --out report.html
  edapp migrate report --db "$EDAPP_EXPORT_DB" -o csv --moved-at 2026-11-01T00:00:00Z --fail-on-differences`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.db = dbURL(o.IO.ErrOut, o.Env, cmd.Flags().Changed("db"), o.db); o.db == "" {
				return usagef("--db is required (or EDAPP_EXPORT_DB)")
			}
			if err := o.parse(cmd, movedAt); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return reportRun(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.db, "db", "", "the database both sources were exported into: sqlite:PATH or postgres://... (default: $EDAPP_EXPORT_DB)")
	cmd.Flags().StringVarP(&o.format, "output", "o", "", "output format: table, json, csv or html (default: as --out's extension names, else table on a terminal and json otherwise)")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(reportFormats, cobra.ShellCompDirectiveNoFileComp))
	cmd.Flags().StringVar(&o.out, "out", "", "write the report to this file (created readable by its owner only) instead of stdout")
	cmd.Flags().StringVar(&movedAt, "moved-at", "", "when the account moved, RFC 3339 or YYYY-MM-DD (default: the latest EdApp activity in the database)")
	cmd.Flags().BoolVar(&o.failOnDifferences, "fail-on-differences", false, "exit 1 when the move lost or changed anything (any difference but completed_after_move)")
	return cmd
}

// parse checks -o and reads --moved-at.
func (o *migrateReportOptions) parse(cmd *cobra.Command, movedAt string) error {
	switch o.format {
	case "", "table", "json", "csv", "html":
	default:
		return usagef("invalid -o %q: want table, json, csv or html", o.format)
	}
	if movedAt == "" {
		return nil
	}
	for _, layout := range []string{time.RFC3339Nano, time.DateOnly} {
		if t, err := time.Parse(layout, movedAt); err == nil {
			o.movedAt = t.UTC()
			return nil
		}
	}
	return usagef("invalid --moved-at %q: want an RFC 3339 time (2026-11-01T09:00:00Z) or a date (2026-11-01)", movedAt)
}

// errDifferences ends a report run with --fail-on-differences that found
// a loss.
type errDifferences struct{ n int }

func (e errDifferences) Error() string {
	return fmt.Sprintf("the report found %d difference(s) the move lost or changed (--fail-on-differences)", e.n)
}

// reportRun opens the database read-only and writes the report.
func reportRun(ctx context.Context, o *migrateReportOptions) error {
	report, err := readMoveReport(ctx, o)
	if err != nil {
		return err
	}
	if err := writeMoveReport(o, report); err != nil {
		return err
	}
	if o.failOnDifferences {
		n := 0
		for _, d := range report.Differences {
			if sqldest.IsLoss(d.Category) {
				n++
			}
		}
		if n > 0 {
			return errDifferences{n}
		}
	}
	return nil
}

// readMoveReport reads the report from o.db, which it opens read-only.
func readMoveReport(ctx context.Context, o *migrateReportOptions) (*sqldest.Report, error) {
	db, err := o.OpenReadOnly(ctx, o.db, o.IO.ErrOut)
	if err != nil {
		return nil, err
	}
	defer db.close()
	opts := []sqldest.ReportOption{sqldest.WithReportNormalizer(norm.NFC.String)}
	if !o.movedAt.IsZero() {
		opts = append(opts, sqldest.WithMovedAt(o.movedAt))
	}
	report, err := sqldest.MigrationReport(ctx, db.q, opts...)
	switch {
	case errors.Is(err, sqldest.ErrNotExported):
		return nil, fmt.Errorf("database %s: %w: run edapp export for it first", db.target.Redacted, err)
	case errors.Is(err, sqldest.ErrIdentitiesStale):
		return nil, refusedError{fmt.Errorf("database %s: %w: run edapp export (either source) with this version first", db.target.Redacted, err)}
	case err != nil:
		return nil, fmt.Errorf("database %s: %s", db.target.Redacted, cleanDBError(db.target, err))
	}
	return report, nil
}

// writeMoveReport writes the report in o's format, to --out or stdout.
func writeMoveReport(o *migrateReportOptions, r *sqldest.Report) (err error) {
	w := o.IO.Out
	if o.out != "" {
		file, err := os.OpenFile(o.out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, privateMode)
		if err != nil {
			return err
		}
		defer func() {
			if cerr := file.Close(); err == nil {
				err = cerr
			}
		}()
		w = file
	}
	return writeReportAs(w, o.resolveFormat(w), r)
}

// resolveFormat is -o's format; without -o, the one --out's extension
// names (.html, .csv, .json), else table on a terminal and json otherwise.
func (o *migrateReportOptions) resolveFormat(w io.Writer) string {
	if o.format != "" {
		return o.format
	}
	switch strings.ToLower(filepath.Ext(o.out)) {
	case ".html", ".htm":
		return "html"
	case ".csv":
		return "csv"
	}
	if o.out == "" && isTerminal(w) {
		return "table"
	}
	return "json"
}

func writeReportAs(w io.Writer, format string, r *sqldest.Report) error {
	switch format {
	case "table":
		return writeReportTable(w, r)
	case "csv":
		return writeReportCSV(w, r)
	case "html":
		return writeReportHTML(w, r)
	}
	return writeJSON(w, r)
}
