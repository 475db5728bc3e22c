//go:build !unix

package process

import "os"

// Alive reports whether a process with this id runs on this host.
func Alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
