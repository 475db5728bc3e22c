package main

import "github.com/spf13/cobra"

func (a *app) exportCommand() *cobra.Command {
	return &cobra.Command{Use: "export", Short: "Export the account", Args: noArgs}
}
