package main

import (
	"context"
	"fmt"
	"os"

	"github.com/edapp-go/edapp"
	"github.com/spf13/cobra"
)

func (a *app) usersCommand() *cobra.Command {
	cmd := groupCommand("users", "Manage the account's users", "  edapp users sync --csv users.csv")
	cmd.AddCommand(a.usersSyncCommand())
	return cmd
}

func (a *app) usersSyncCommand() *cobra.Command {
	var (
		file          string
		apply         bool
		deleteMissing bool
	)
	cmd := &cobra.Command{
		Use:   "sync --csv FILE [--apply] [--delete-missing]",
		Short: "Make the account's users match a CSV file",
		Long: `sync makes the account's users match a CSV file, matching users by external id.

The CSV has a header row with some of the columns
  externalId,username,email,firstName,lastName,userGroups,roles,timeZone
in any order; externalId is required, and any other column is an error.
userGroups holds group names or ids and roles holds role names, each list
separated by ";". A column that is absent, or an empty cell, leaves that
field of an existing user as it is. A new user needs a username.

Without --apply, sync prints the plan (counts, then one line per create,
update and delete with the fields that change) and changes nothing. With
--apply it carries the plan out; a second run then plans nothing.

Bad rows (a missing or duplicate external id, an unknown role, an unknown
group) are reported with their line numbers, and the whole file is refused
before any change. Users are deleted only with --delete-missing, and users
without an external id are never deleted: the file does not manage them.

Reads use the SDK's bulk lane, which leaves part of the rate budget to
interactive callers.`,
		Example: `  edapp users sync --csv users.csv
  edapp users sync --csv users.csv --apply
  edapp users sync --csv users.csv --apply --delete-missing`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.usersSync(cmd.Context(), file, apply, deleteMissing)
		},
	}
	cmd.Flags().StringVar(&file, "csv", "", "CSV file of the desired users (- for stdin)")
	cmd.Flags().BoolVar(&apply, "apply", false, "carry out the plan (default: print it only)")
	cmd.Flags().BoolVar(&deleteMissing, "delete-missing", false, "delete users with an external id that the file does not list")
	_ = cmd.MarkFlagRequired("csv")
	_ = cmd.MarkFlagFilename("csv", "csv")
	return cmd
}

func (a *app) usersSync(ctx context.Context, file string, apply, deleteMissing bool) error {
	c, err := a.client()
	if err != nil {
		return err
	}
	in := a.stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}

	var prog progress = nopProgress{}
	if isTerminal(a.stderr) {
		prog = newProgress(ctx, a.stderr, true)
	}
	var gr, ur edapp.Response
	groups, err := collect(ctx, prog, "groups", &gr, c.UserGroups.All(ctx, nil, readOpts(&gr)...))
	if err != nil {
		return err
	}
	gi := newGroupIndex(groups)
	rows, bad, err := readSyncCSV(in, gi)
	if err != nil {
		return err
	}
	users, err := collect(ctx, prog, "users", &ur, c.Users.All(ctx, &edapp.UserListOptions{ListOptions: edapp.ListOptions{PageSize: edapp.MaxPageSize}}, readOpts(&ur)...))
	prog.wait()
	if err != nil {
		return err
	}
	plan, err := planSync(rows, bad, users, gi, deleteMissing)
	if err != nil {
		return err
	}
	plan.print(a.stdout)
	if !apply || plan.empty() {
		return nil
	}
	return a.applySync(ctx, c, plan)
}

func (a *app) applySync(ctx context.Context, c *edapp.Client, plan syncPlan) error {
	var done int
	fail := func(act syncAction, err error) error {
		return fmt.Errorf("%s %s: %w (%d change(s) made before this one)", act.kind, act.row.externalID+act.user.ExternalID, err, done)
	}
	for _, act := range plan.creates {
		u, err := c.Users.Create(ctx, createParams(act.row))
		if err != nil {
			return fail(act, err)
		}
		done++
		fmt.Fprintf(a.stdout, "created %s (id %s)\n", act.row.externalID, u.ID)
	}
	for _, act := range plan.updates {
		if _, err := c.Users.Update(ctx, act.user.ID, updateParams(act)); err != nil {
			return fail(act, err)
		}
		done++
		fmt.Fprintf(a.stdout, "updated %s (id %s)\n", act.row.externalID, act.user.ID)
	}
	for _, act := range plan.deletes {
		if err := c.Users.Delete(ctx, act.user.ID); err != nil {
			return fail(act, err)
		}
		done++
		fmt.Fprintf(a.stdout, "deleted %s (id %s)\n", act.user.ExternalID, act.user.ID)
	}
	fmt.Fprintf(a.stdout, "applied: %d created, %d updated, %d deleted\n", len(plan.creates), len(plan.updates), len(plan.deletes))
	return nil
}
