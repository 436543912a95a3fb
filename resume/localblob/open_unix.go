//go:build unix

package localblob

import (
	"os"
	"syscall"
)

// openNoBlock opens name for reading without waiting: a named pipe with no
// writer would otherwise block the open until one comes.
func openNoBlock(root *os.Root, name string) (*os.File, error) {
	return root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// openFileNoBlock opens a file by its name for reading without waiting.
func openFileNoBlock(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// lockDir takes an exclusive flock(2) on the directory d, waiting for any
// other holder (in this process or another); unlock releases it.
func lockDir(d *os.Root) (unlock func(), err error) {
	f, err := d.Open(".")
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
