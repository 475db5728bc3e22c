package main

// gcPercent is the Go collector's target the binary runs with: 200
// instead of Go's 100. An export allocates fast and keeps little alive
// (its pages, batches and groups are bounded), so at 100 the collector
// runs often and finds little each time; at 200 it runs half as often,
// for a higher peak memory that still does not grow with the account
// (docs/bench/database-writer.md has the figures). GOGC in the
// environment wins, as for any Go program: gcPercent reports false then.
func gcPercent(getenv func(string) string) (int, bool) {
	if getenv("GOGC") != "" {
		return 0, false
	}
	return 200, true
}
