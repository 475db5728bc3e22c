package main

import (
	"github.com/spf13/cobra"
)

func newCmdUsers(f *factory) *cobra.Command {
	cmd := groupCommand("users", "Manage the account's users", "  edapp users sync --csv users.csv")
	cmd.AddCommand(newCmdUsersSync(f, nil))
	return cmd
}
