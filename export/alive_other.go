//go:build !unix

package export

import "os"

// processAlive reports whether a process with this id runs on this host.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
