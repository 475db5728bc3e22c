package filedest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/edapp-go/edapp/export"
	"github.com/edapp-go/edapp/export/internal/process"
)

// lockFile, in the export directory, names the process that writes it.
const lockFile = ".edapp-export.lock"

// lockDir takes dir for this process: it creates the lock file, or takes
// it over when the process it names, on this host, is gone. It refuses
// (export.ErrLocked) while that process runs.
func lockDir(dir string) (release func(), err error) {
	p := filepath.Join(dir, lockFile)
	me, _ := os.Hostname()
	for range 3 {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			_, err = fmt.Fprintf(f, "%d %s\n", os.Getpid(), me)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				os.Remove(p)
				return nil, err
			}
			return func() { os.Remove(p) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		var pid int
		var host string
		b, _ := os.ReadFile(p)
		if _, err := fmt.Sscanf(string(b), "%d %s", &pid, &host); err == nil && (host != me || process.Alive(pid)) {
			return nil, fmt.Errorf("%w: process %d on %s is exporting into %s (if it is gone, remove %s)", export.ErrLocked, pid, host, dir, p)
		}
		// A stale lock (its process is gone) or an unreadable one: take
		// it over.
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%w: cannot take %s", export.ErrLocked, p)
}
