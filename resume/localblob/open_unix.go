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
