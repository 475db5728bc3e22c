package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/edapp-go/edapp/export"
	"github.com/spf13/cobra"
)

// newCmdMigrate makes `edapp migrate`, the commands of a move from EdApp
// to SafetyCulture Training.
func newCmdMigrate(f *factory) *cobra.Command {
	cmd := groupCommand("migrate", "Check a move from EdApp to SafetyCulture Training", "  edapp migrate report --db sqlite:training.db")
	cmd.AddCommand(newCmdMigrateReport(f, nil))
	return cmd
}

// migrateReportOptions are what `edapp migrate report` parsed to.
type migrateReportOptions struct {
	db     string
	output outputFlag
}

// newCmdMigrateReport makes `edapp migrate report`; runF, when not nil,
// runs instead with the options the flags parsed to.
func newCmdMigrateReport(f *factory, runF func(*migrateReportOptions) error) *cobra.Command {
	var o migrateReportOptions
	cmd := &cobra.Command{
		Use:   "report --db URL [-o table|json]",
		Short: "Compare the completions each service holds, from a database both were exported into",
		Long: `report reads a database that both "edapp export" and "edapp export --source
safetyculture" wrote (no request is sent) and lists, for every person and
course, the completion in EdApp, in SafetyCulture, and what differs:
identity conflicts first, then people not matched, courses not matched,
completions missing after the move, dates changed and scores lost. Totals
come first. It exits 0 when the report ran, whatever it found, and 1 when
either source was never exported into the database.`,
		Example: `  edapp migrate report --db sqlite:training.db
  edapp migrate report --db sqlite:training.db -o json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("db") {
				o.db = f.env("EDAPP_EXPORT_DB")
			}
			if o.db == "" {
				return usagef("--db is required (or EDAPP_EXPORT_DB)")
			}
			if runF != nil {
				return runF(&o)
			}
			return f.runMigrateReport(cmd.Context(), &o)
		},
	}
	cmd.Flags().StringVar(&o.db, "db", "", "the database both sources were exported into: sqlite:PATH or postgres://... (default: $EDAPP_EXPORT_DB)")
	o.output.register(cmd)
	return cmd
}

// runMigrateReport opens the database, migrates its schema forward, and
// prints the report.
func (f *factory) runMigrateReport(ctx context.Context, o *migrateReportOptions) error {
	format, err := o.output.resolve(f.stdout)
	if err != nil {
		return err
	}
	db, target, err := openDB(ctx, o.db)
	if err != nil {
		return err
	}
	defer db.Close()
	report, err := export.MigrationReport(ctx, db)
	if errors.Is(err, export.ErrNotExported) {
		return fmt.Errorf("database %s: %w: run edapp export for it first", target.Redacted, err)
	}
	if err != nil {
		return fmt.Errorf("database %s: %s", target.Redacted, cleanDBError(target, err))
	}
	if format == "json" {
		return writeJSON(f.stdout, report)
	}
	return writeReportTable(f, report)
}

// writeReportTable prints the totals, then the rows.
func writeReportTable(f *factory, r *export.Report) error {
	var totals [][]string
	for _, k := range slices.Sorted(maps.Keys(r.Totals)) {
		totals = append(totals, []string{k, fmt.Sprint(r.Totals[k])})
	}
	if err := writeTable(f.stdout, []string{"TOTAL", "COUNT"}, totals); err != nil {
		return err
	}
	fmt.Fprintln(f.stdout)
	rows := make([][]string, len(r.Rows))
	for i, row := range r.Rows {
		rows[i] = []string{row.Person, row.Course, day(row.EdAppCompleted), day(row.SCCompleted), strings.Join(row.Differences, ", ")}
	}
	return writeTable(f.stdout, []string{"PERSON", "COURSE", "EDAPP", "SAFETYCULTURE", "DIFFERS"}, rows)
}

func day(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
