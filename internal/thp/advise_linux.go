package thp

import "golang.org/x/sys/unix"

// advise asks for huge pages for the n bytes at addr (madvise(2)
// MADV_HUGEPAGE). The range spans several of the runtime's objects, so it
// is given to the system call as numbers, not as a slice, which the race
// detector's pointer checks would refuse.
func advise(addr, n uintptr) error {
	if _, _, e := unix.Syscall(unix.SYS_MADVISE, addr, n, unix.MADV_HUGEPAGE); e != 0 {
		return e
	}
	return nil
}
