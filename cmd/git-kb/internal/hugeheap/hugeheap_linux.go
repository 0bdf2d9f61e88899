package hugeheap

import (
	"runtime"
	"syscall"
	"unsafe"
)

const hugePage = 2 << 20

func init() {
	if !wanted() {
		return
	}
	first := new([16]byte) // in the heap's first chunk, below the block
	block := make([]byte, Reserve)
	lo := min(uintptr(unsafe.Pointer(first)), uintptr(unsafe.Pointer(&block[0])))
	hi := uintptr(unsafe.Pointer(&block[0])) + Reserve
	// Whole huge pages only: the kernel gives a huge page to a 2 MiB
	// region with nothing in it yet, so the part of the first chunk that
	// the start has used keeps its small pages.
	lo &^= hugePage - 1
	hi &^= hugePage - 1
	// ENOMEM: part of the range is not mapped (the block went to a new,
	// discontiguous arena); the mapped parts are advised all the same.
	if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, madvHugepage); errno == 0 || errno == syscall.ENOMEM {
		Advised.Start, Advised.End = lo, hi
	}
	block = nil
	// The block's pages go back to the heap's free pages, still
	// untouched, now advised.
	runtime.GC()
}

const madvHugepage = 14 // MADV_HUGEPAGE

// wanted reports whether the kernel gives huge pages only to memory that
// asks for them, and the user did not turn huge pages off for Go's heap.
func wanted() bool {
	if v, ok := syscall.Getenv("GODEBUG"); ok && contains(v, "disablethp=1") {
		return false
	}
	fd, err := syscall.Open("/sys/kernel/mm/transparent_hugepage/enabled", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	var buf [64]byte
	n, _ := syscall.Read(fd, buf[:])
	return n > 0 && contains(string(buf[:n]), "[madvise]")
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
