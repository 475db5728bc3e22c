//go:build unix

package process

import (
	"errors"
	"syscall"
)

// Alive reports whether a process with this id runs on this host.
func Alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
