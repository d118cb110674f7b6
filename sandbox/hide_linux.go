package sandbox

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// hide covers each secret path of the workspace with an empty
// read-only file or directory in a mount namespace of this thread's
// own, as bubblewrap does: what reads it finds nothing, what writes it
// fails (EROFS), what renames or removes it fails (EBUSY), and the
// workspace root keeps every right for the files created later (no
// frozen directory). It needs CAP_SYS_ADMIN (root, or a user namespace
// of this process's own, which a multi-threaded Go process cannot
// enter): without it, it fails and changes nothing, and the caller
// denies the paths with Landlock instead. The calling goroutine must be
// locked to its thread, which must then execute the command.
//
// The command cannot undo the mounts: a Landlock-restricted process
// may not mount or unmount.
func hide(paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("no mount namespace of its own: %w", err)
	}
	// From here on a failure leaves this thread in a private namespace
	// where some paths may be hidden: the caller then also denies every
	// path with Landlock, which is stricter, never weaker.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mount namespace private: %w", err)
	}
	dir, err := os.MkdirTemp("", "guardrun-void-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	voidFile, voidDir := filepath.Join(dir, "file"), filepath.Join(dir, "dir")
	if err := os.WriteFile(voidFile, nil, 0o400); err != nil {
		return err
	}
	if err := os.Mkdir(voidDir, 0o500); err != nil {
		return err
	}
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		src := voidFile
		if fi.IsDir() {
			src = voidDir
		}
		if err := unix.Mount(src, p, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("covering %s: %w", p, err)
		}
		if err := unix.Mount("", p, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("making the cover of %s read-only: %w", p, err)
		}
	}
	return nil
}
