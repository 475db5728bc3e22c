package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/usersync"
	"github.com/spf13/cobra"
)

// syncOptions are what `edapp users sync` builds on, from the factory,
// and its flags.
type syncOptions struct {
	IO       *ioStreams
	Client   func() (*apiClient, error)
	Progress func(ctx context.Context, bars bool) progress

	budget        budgetFlags
	file          string
	apply         bool
	deleteMissing bool
	maxDeletes    int  // --max-deletes
	maxDeletesSet bool // --max-deletes was given; else usersync.DefaultMaxDeletes of the account
	// engine are the engine's options the flags make; without
	// --max-deletes, syncRun sets MaxDeletes once the account is loaded.
	engine usersync.Options
}

// syncHelp is the long help of users sync.
const syncHelp = `sync makes the account's users match a CSV file, matching users by external id.

The CSV has a header row with some of the columns
  externalId,username,email,firstName,lastName,userGroups,roles,timeZone
in any order; externalId is required, and any other column is an error.
userGroups holds group names or ids and roles holds role names, each list
separated by ";". A column that is absent, or an empty cell, leaves that
field of an existing user as it is. A new user needs a username.

Without --apply, sync prints the plan (counts, then one line per create,
update and delete with the fields that change) and changes nothing. With
--apply it carries the plan out; a second run then plans nothing.

External ids match ignoring case and surrounding space, on both sides:
"emp-001" in the file is the user "EMP-001 " of the account (Unicode simple
case folding, no normalisation).

A file that cannot be right is refused whole, before any change, with every
problem and its line: no data rows (a truncated export), a cell that is not
UTF-8 (convert it first: iconv -f latin1 -t utf-8), a missing or duplicate
external id, an external id with control characters or letters that look
like others (shown escaped), an unknown role or group, a new user without a
username. An account with two users whose external ids differ only in case
or surrounding space is refused too, as is a plan that would delete one id
and create another that differs from it only so.

Users are deleted only with --delete-missing, and users without an external
id are never deleted: the file does not manage them. Deletions are capped:
by default at 10% of the managed users (at least 1); a plan over the cap is
refused before anything changes. --max-deletes N sets the cap (0 allows no
deletion); there is no unlimited value.

If the answer to a create is lost, sync asks the service whether the user
exists and counts it only if so; a second run converges either way.

Reads use the SDK's bulk lane, which leaves part of the rate budget to
interactive callers.`

// newCmdUsersSync makes `edapp users sync`; runF, when not nil, runs
// instead of the sync with the options the flags parsed to.
func newCmdUsersSync(f *factory, runF func(*syncOptions) error) *cobra.Command {
	o := &syncOptions{IO: f.IO, Progress: f.Progress}
	o.Client = func() (*apiClient, error) { return f.Client(&o.budget) }
	cmd := &cobra.Command{
		Use:   "sync --csv FILE [--apply] [--delete-missing [--max-deletes N]]",
		Short: "Make the account's users match a CSV file",
		Long:  syncHelp,
		Example: `  edapp users sync --csv users.csv
  edapp users sync --csv users.csv --apply
  edapp users sync --csv users.csv --apply --delete-missing
  edapp users sync --csv users.csv --apply --delete-missing --max-deletes 50`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.maxDeletesSet = cmd.Flags().Changed("max-deletes")
			var err error
			if o.engine, err = o.engineOptions(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return syncRun(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.file, "csv", "", "CSV file of the desired users (- for stdin)")
	fl.BoolVar(&o.apply, "apply", false, "carry out the plan (default: print it only)")
	fl.BoolVar(&o.deleteMissing, "delete-missing", false, "delete users with an external id that the file does not list")
	fl.IntVar(&o.maxDeletes, "max-deletes", 0, "the most users a run may delete (default 10% of the managed users, at least 1)")
	addBudgetFlags(cmd, &o.budget)
	addStatsFlag(f.IO, cmd, nil)
	_ = cmd.MarkFlagFilename("csv", "csv")
	return cmd
}

// engineOptions checks the flags and turns them into the engine's options.
func (o syncOptions) engineOptions() (usersync.Options, error) {
	opts := usersync.Options{DeleteMissing: o.deleteMissing}
	if o.file == "" {
		return opts, usagef("--csv is required: the file of the desired users (- for stdin)")
	}
	if !o.maxDeletesSet {
		return opts, nil
	}
	if !o.deleteMissing {
		return opts, usagef("--max-deletes caps --delete-missing, which is not given")
	}
	if o.maxDeletes < 0 {
		return opts, usagef("invalid --max-deletes %d: want 0 or more", o.maxDeletes)
	}
	opts.MaxDeletes = o.maxDeletes
	return opts, nil
}

// syncRun reads the file, plans, prints the plan and, with --apply,
// carries it out.
func syncRun(ctx context.Context, o *syncOptions) error {
	opts := o.engine
	api, err := o.Client()
	if err != nil {
		return err
	}
	c := api.Client
	rows, err := readSyncFile(o.IO.In, o.file)
	if err != nil {
		return err
	}
	acct, err := loadAccount(ctx, o, c)
	if err != nil {
		return err
	}
	if !o.maxDeletesSet {
		opts.MaxDeletes = usersync.DefaultMaxDeletes(acct)
	}
	plan, err := usersync.NewPlan(rows, acct, opts)
	if plan != nil {
		printPlan(o.IO.Out, plan)
	}
	var tooMany *usersync.TooManyDeletesError
	if errors.As(err, &tooMany) {
		limit := "--max-deletes"
		if !o.maxDeletesSet {
			limit = "the default --max-deletes, 10% of the managed users"
		}
		return fmt.Errorf("users sync: refused: %w (%s); nothing was changed. Check the file, or pass --max-deletes %d to allow it", err, limit, tooMany.Deletes)
	}
	if err != nil {
		return whatFailed("users sync", err)
	}
	if !o.apply || plan.Empty() {
		return nil
	}
	return applySync(ctx, o.IO, c, plan)
}

func readSyncFile(in io.Reader, file string) ([]usersync.Row, error) {
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, whatFailed("users sync", err)
		}
		defer f.Close()
		in = f
	}
	rows, err := usersync.ReadCSV(in)
	if err != nil {
		return nil, whatFailed("users sync: "+file, err)
	}
	return rows, nil
}

// loadAccount lists the groups and users, with progress on a terminal.
func loadAccount(ctx context.Context, o *syncOptions, c *edapp.Client) (usersync.Account, error) {
	var prog progress = nopProgress{}
	if isTerminal(o.IO.ErrOut) {
		prog = o.Progress(ctx, true)
	}
	defer prog.wait()
	var gr, ur edapp.Response
	groups, err := collect(ctx, prog, "groups", &gr, c.UserGroups.All(ctx, nil, readOpts(&gr)...))
	if err != nil {
		return usersync.Account{}, whatFailed("users sync: listing groups", err)
	}
	users, err := collect(ctx, prog, "users", &ur, c.Users.All(ctx, &edapp.UserListOptions{ListOptions: edapp.ListOptions{PageSize: edapp.MaxPageSize}}, readOpts(&ur)...))
	if err != nil {
		return usersync.Account{}, whatFailed("users sync: listing users", err)
	}
	return usersync.Account{Users: users, Groups: groups}, nil
}

// pastTense words what --apply did, by the kind of action.
var pastTense = map[usersync.Kind]string{usersync.Create: "created", usersync.Update: "updated", usersync.Delete: "deleted"}

func applySync(ctx context.Context, s *ioStreams, c *edapp.Client, plan *usersync.Plan) error {
	res, err := plan.Apply(ctx, c, func(act usersync.Action, id string) {
		fmt.Fprintf(s.Out, "%s %s (id %s)\n", pastTense[act.Kind], act.ExternalID(), id)
	})
	s.stats.stats.syncDone(res)
	fmt.Fprintf(s.Out, "applied: %d created, %d updated, %d deleted", res.Created, res.Updated, res.Deleted)
	if res.Unknown != nil {
		fmt.Fprintf(s.Out, ", 1 unknown (%s %s: the answer was lost)", res.Unknown.Kind, res.Unknown.ExternalID())
	}
	fmt.Fprintln(s.Out)
	return whatFailed("users sync", err)
}

// printPlan writes the plan: counts, then one line per action.
func printPlan(w io.Writer, p *usersync.Plan) {
	fmt.Fprintf(w, "plan: %d to create, %d to update, %d to delete, %d unchanged\n",
		len(p.Creates), len(p.Updates), len(p.Deletes), p.Unchanged)
	for _, act := range p.Creates {
		fmt.Fprintf(w, "create %s (line %d):", act.Row.ExternalID, act.Row.Line)
		for _, c := range act.Changes {
			fmt.Fprintf(w, " %s=%q", c.Field, c.To)
		}
		fmt.Fprintln(w)
	}
	for _, act := range p.Updates {
		fmt.Fprintf(w, "update %s (line %d, id %s):", act.Row.ExternalID, act.Row.Line, act.User.ID)
		for i, c := range act.Changes {
			sep := " "
			if i > 0 {
				sep = ", "
			}
			fmt.Fprintf(w, "%s%s %q -> %q", sep, c.Field, c.From, c.To)
		}
		fmt.Fprintln(w)
	}
	for _, act := range p.Deletes {
		fmt.Fprintf(w, "delete %s (id %s, username %q)\n", act.User.ExternalID, act.User.ID, act.User.Username)
	}
}
