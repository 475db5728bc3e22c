package main

import "os"

// privateMode is the mode of every file the command creates: the exported
// files, the SQLite database (its -wal and -shm files take its mode) and
// the state and --stats files hold account data. A file that exists keeps
// its mode: an operator may have opened it to a group on purpose.
const privateMode = 0o600

// createPrivate creates the empty file path with privateMode when it does
// not exist, before a driver creates it with the process's default mode.
// Any failure is left to the driver to report: it knows what it needs.
func createPrivate(path string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, privateMode)
	if err == nil {
		f.Close()
	}
}
