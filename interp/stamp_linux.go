package interp

import (
	"io/fs"
	"syscall"
)

// fileStamp tells whether a file changed: the change time moves with every
// write, rename or link of the inode, and a process cannot set it back.
type fileStamp struct {
	size         int64
	mtime, ctime int64
	ino          uint64
}

func stampOf(info fs.FileInfo) fileStamp {
	s := fileStamp{size: info.Size(), mtime: info.ModTime().UnixNano()}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		s.ctime = st.Ctim.Nano()
		s.ino = st.Ino
	}
	return s
}
