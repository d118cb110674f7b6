package sandbox

import ll "github.com/landlock-lsm/go-landlock/landlock/syscall"

// The rights a profile grants or withholds, in three groups.
const (
	// writeRights change what is on disk: the protect class withholds
	// them from guardrun's files, the writes class from everything but
	// the workspace, temp and caches.
	writeRights = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
		ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock |
		ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSRefer |
		ll.AccessFSTruncate
	// readRights reveal a file's content: the secrets class withholds
	// them from the secret paths. Listing a directory (read_dir) is not
	// among them: names stay visible, contents do not.
	readRights = ll.AccessFSReadFile | ll.AccessFSExecute
	// otherRights are granted everywhere.
	otherRights = ll.AccessFSReadDir | ll.AccessFSIoctlDev
	// fileRights are the rights that apply to a file (not a directory).
	fileRights = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile |
		ll.AccessFSTruncate | ll.AccessFSIoctlDev
)

// handledFS is the file system rights Landlock ABI abi can restrict.
func handledFS(abi int) uint64 {
	switch {
	case abi >= 5:
		return (1 << 16) - 1
	case abi >= 3:
		return (1 << 15) - 1
	case abi == 2:
		return (1 << 14) - 1
	case abi == 1:
		return (1 << 13) - 1
	}
	return 0
}
