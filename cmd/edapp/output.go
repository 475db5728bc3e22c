package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/spf13/cobra"
)

// outputFlag is the -o flag of commands that print records: table or json.
type outputFlag struct{ format string }

func (o *outputFlag) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&o.format, "output", "o", "", "output format: table or json (default: table on a terminal, json otherwise)")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"table", "json"}, cobra.ShellCompDirectiveNoFileComp))
}

// resolve returns the format to use for w, or a usage error.
func (o *outputFlag) resolve(w io.Writer) (string, error) {
	switch o.format {
	case "table", "json":
		return o.format, nil
	case "":
		if isTerminal(w) {
			return "table", nil
		}
		return "json", nil
	}
	return "", usagef("invalid -o %q: want table or json", o.format)
}

// writeTable writes rows under a header, in aligned columns. A cell
// holding a control or format character (a newline that would forge a
// row, a terminal's escape sequence, a bidirectional override) is written
// quoted, with those characters escaped.
func writeTable(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	write := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, tableCell(c))
		}
		fmt.Fprintln(tw)
	}
	write(header)
	for _, r := range rows {
		write(r)
	}
	return tw.Flush()
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// tableCell is s, quoted with its control and format characters escaped
// when it holds any.
func tableCell(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) < 0 {
		return s
	}
	return strconv.QuoteToGraphic(s)
}
