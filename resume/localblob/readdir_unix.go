//go:build unix

package localblob

import (
	"io/fs"
	"os"
	"syscall"
)

// readDirEntries reads the entries of a directory opened through the root.
// A *os.File opened in a Root lstats every entry as it reads (it may not
// lstat lazily by path), which for a job dir of 3,000 chk-<n> dirs is 3,000
// needless system calls per listing; a duplicate of the same descriptor,
// outside the Root, reads the entry types the kernel reports (d_type) and
// lstats only entries of unknown type, relative to the descriptor. Nothing
// is resolved by path: sizes and times are read later through the root.
func readDirEntries(f *os.File) ([]fs.DirEntry, error) {
	raw, err := f.SyscallConn()
	if err != nil {
		return f.ReadDir(-1)
	}
	var fd int
	var derr error
	if err := raw.Control(func(u uintptr) { fd, derr = syscall.Dup(int(u)) }); err != nil || derr != nil {
		return f.ReadDir(-1)
	}
	syscall.CloseOnExec(fd)
	d := os.NewFile(uintptr(fd), f.Name())
	defer d.Close()
	return d.ReadDir(-1)
}
