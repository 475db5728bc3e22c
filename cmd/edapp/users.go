package main

import (
	"github.com/spf13/cobra"
)

func (a *app) usersCommand() *cobra.Command {
	cmd := groupCommand("users", "Manage the account's users", "  edapp users sync --csv users.csv")
	cmd.AddCommand(a.usersSyncCommand())
	return cmd
}
