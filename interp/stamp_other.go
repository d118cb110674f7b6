//go:build !linux

package interp

import "io/fs"

// fileStamp tells whether a file changed. Outside Linux only the size and
// modification time are compared.
type fileStamp struct {
	size  int64
	mtime int64
}

func stampOf(info fs.FileInfo) fileStamp {
	return fileStamp{size: info.Size(), mtime: info.ModTime().UnixNano()}
}
