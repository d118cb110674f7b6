package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock's TCP rules (ABI 4 to 7) restrict connect(2) on plain TCP
// sockets only: a Multipath TCP socket (IPPROTO_MPTCP) connects where a
// TCP one is refused (measured on Linux 6.18, see the tests), UDP and
// raw sockets are not restricted before ABI 10, and io_uring creates
// sockets without the socket(2) system call. The offline class closes
// those with a seccomp filter: for AF_INET, AF_INET6 and AF_PACKET,
// socket(2) creates only a plain TCP stream socket (type SOCK_STREAM,
// protocol 0 or IPPROTO_TCP), anything else fails with EACCES;
// io_uring_setup(2) fails with EACCES; a system call of another
// architecture than the native one (32-bit compat entry points,
// socketcall(2), x32) fails with EACCES.

// auditArch is the native architecture as seccomp names it.
var auditArch = map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}

// denySockets installs the offline class's seccomp filter on every
// thread of this process (no_new_privs must be set).
func denySockets() error {
	arch, ok := auditArch[runtime.GOARCH]
	if !ok {
		return &UnavailableError{Reason: "the offline class's socket filter is written for amd64 and arm64, not " + runtime.GOARCH}
	}
	const (
		nr    = 0  // offsetof(struct seccomp_data, nr)
		archo = 4  // offsetof(arch)
		arg0  = 16 // args[0], low half on little-endian
		arg1  = 24
		arg2  = 32
		allow = unix.SECCOMP_RET_ALLOW
		deny  = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	)
	ld := func(k uint32) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: k}
	}
	jeq := func(k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: k, Jt: jt, Jf: jf}
	}
	ret := func(k uint32) unix.SockFilter { return unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k} }
	prog := []unix.SockFilter{
		/* 0 */ ld(archo),
		/* 1 */ jeq(arch, 1, 0),
		/* 2 */ ret(deny),
		/* 3 */ ld(nr),
		/* 4 */ {Code: unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, K: 0x40000000, Jt: 1}, // x32 system calls
		/* 5 */ jeq(unix.SYS_IO_URING_SETUP, 0, 1),
		/* 6 */ ret(deny),
		/* 7 */ jeq(unix.SYS_SOCKET, 1, 0),
		/* 8 */ ret(allow),
		/* 9 */ ld(arg0),
		/* 10 */ jeq(unix.AF_INET, 3, 0),
		/* 11 */ jeq(unix.AF_INET6, 2, 0),
		/* 12 */ jeq(unix.AF_PACKET, 0, 8), // to 21: allow
		/* 13 */ ret(deny),
		/* 14 */ ld(arg1),
		/* 15 */ {Code: unix.BPF_ALU | unix.BPF_AND | unix.BPF_K, K: 0xf}, // the type without SOCK_NONBLOCK, SOCK_CLOEXEC
		/* 16 */ jeq(unix.SOCK_STREAM, 1, 0),
		/* 17 */ ret(deny),
		/* 18 */ ld(arg2),
		/* 19 */ jeq(0, 1, 0),
		/* 20 */ jeq(unix.IPPROTO_TCP, 0, 1),
		/* 21 */ ret(allow),
		/* 22 */ ret(deny),
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return fmt.Errorf("installing the offline class's socket filter (seccomp): %w", e)
	}
	runtime.KeepAlive(prog)
	return nil
}
