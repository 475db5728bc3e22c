package dbtest

import "syscall"

// shm is the memory file system that Linux distributions mount.
const shm = "/dev/shm"

// minMemoryBytes is the room memoryDir wants on it: a server with the
// databases of the tests running at once, and its log. A container's
// default /dev/shm (64 MB) is too small and is not used.
const minMemoryBytes = 1 << 30

// memoryDir returns shm if it is a memory file system with room that lets
// programs run from it (tests start programs they copy to their temporary
// directories), or "".
func memoryDir() string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(shm, &st); err != nil {
		return ""
	}
	const tmpfsMagic, noExec = 0x01021994, 0x8 // TMPFS_MAGIC, ST_NOEXEC
	if st.Type != tmpfsMagic || st.Flags&noExec != 0 || uint64(st.Bavail)*uint64(st.Bsize) < minMemoryBytes {
		return ""
	}
	return shm
}
