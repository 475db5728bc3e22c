package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/edapp-go/edapp/export/dbschema"
	"github.com/spf13/cobra"
)

// newCmdDB makes `edapp db`, the commands that look after the database
// the export and the webhook inbox write.
func newCmdDB(f *factory) *cobra.Command {
	cmd := groupCommand("db", "Look after the database the export and the webhook inbox write", "  edapp db repair --db sqlite:edapp.db")
	cmd.AddCommand(newCmdDBRepair(f, nil))
	return cmd
}

// dbRepairOptions are what `edapp db repair` builds on, from the
// factory, and what its flags parsed to.
type dbRepairOptions struct {
	IO  *ioStreams
	Env func(string) string
	// OpenDB opens the --db database.
	OpenDB dbOpener

	db string
}

const dbRepairHelp = `repair brings the database's schema up to date, as every export does, then
re-creates, empty, each table of the schema the database lacks: one dropped by
hand, though the schema version says it exists (and the views dropped with it).
It says which it re-created. No export or inbox ever re-creates a table
silently: the next export of a re-created table's kind starts that kind over
and refills it; rows only webhooks delivered (events) are gone for good.

An export that finds a table missing repairs the database itself and says so.
Run repair when the inbox ("edapp webhooks serve") reports a missing table, or
to mend a database without exporting.

It exits 0 when the database is whole (nothing to repair, or repaired), 1 when
it cannot be repaired (a schema newer than this program, a database that does
not answer), and 2 on a usage error.`

// newCmdDBRepair makes `edapp db repair`; runF, when not nil, runs
// instead with the options the flags parsed to.
func newCmdDBRepair(f *factory, runF func(*dbRepairOptions) error) *cobra.Command {
	o := &dbRepairOptions{IO: f.IO, Env: f.Env, OpenDB: openDB}
	cmd := &cobra.Command{
		Use:     "repair --db URL",
		Short:   "Re-create the tables of the schema dropped by hand, and say which",
		Long:    dbRepairHelp,
		Example: "  edapp db repair --db sqlite:edapp.db\n  edapp db repair --db \"$EDAPP_EXPORT_DB\"",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.db = dbURL(o.IO.ErrOut, o.Env, cmd.Flags().Changed("db"), o.db); o.db == "" {
				return usagef("--db is required (or EDAPP_EXPORT_DB)")
			}
			if runF != nil {
				return runF(o)
			}
			return dbRepairRun(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.db, "db", "", "the database to repair: sqlite:PATH or postgres://... (default: $EDAPP_EXPORT_DB)")
	return cmd
}

// dbRepairRun opens the database, repairs it and says what it re-created.
func dbRepairRun(ctx context.Context, o *dbRepairOptions) error {
	db, target, err := o.OpenDB(ctx, o.db)
	if err != nil {
		return err
	}
	defer db.Close()
	recreated, err := dbschema.NewMigrator(db, target.Dialect).Repair(ctx)
	if err != nil {
		return fmt.Errorf("database %s: %s", target.Redacted, cleanDBError(target, err))
	}
	if len(recreated) == 0 {
		fmt.Fprintf(o.IO.Out, "database %s: nothing to repair: every table of the schema is there\n", target.Redacted)
		return nil
	}
	fmt.Fprintf(o.IO.Out, "database %s: re-created %d table(s), empty: %s\n", target.Redacted, len(recreated), strings.Join(recreated, ", "))
	fmt.Fprintln(o.IO.Out, "the next export of their kinds starts those kinds over and refills them")
	return nil
}

// repairedNotice is what an export says of the tables it found missing
// and re-created (export.Database.Repaired); "" for none.
func repairedNotice(recreated []string) string {
	if len(recreated) == 0 {
		return ""
	}
	return fmt.Sprintf("the database lacked table(s) %s (dropped by hand?): re-created them empty, and their kinds start over to refill them; \"edapp db repair\" does the same without an export",
		strings.Join(recreated, ", "))
}
