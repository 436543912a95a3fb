//go:build !unix

package localblob

import (
	"errors"
	"os"
)

// openNoBlock opens name for reading. Outside Unix there are no named pipes
// in the file system to wait on; the stat before the open refuses devices.
func openNoBlock(root *os.Root, name string) (*os.File, error) {
	return root.OpenFile(name, os.O_RDONLY, 0)
}

// openFileNoBlock opens a file by its name for reading.
func openFileNoBlock(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY, 0)
}

// lockDir has no lock to take outside Unix: a conditional write
// (WriteCondition) is refused there.
func lockDir(*os.Root) (func(), error) {
	return nil, errors.New("no directory lock on this system: a conditional write (WriteCondition) is not supported")
}
