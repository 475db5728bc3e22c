//go:build race

package main

// raceEnabled says the race detector is on: tests that measure nothing
// but run many processes shrink their data, as the detector slows SQLite
// (a C library translated to Go) by an order of magnitude.
const raceEnabled = true
