//go:build !unix

package localblob

import "os"

// openNoBlock opens name for reading. Outside Unix there are no named pipes
// in the file system to wait on; the stat before the open refuses devices.
func openNoBlock(root *os.Root, name string) (*os.File, error) {
	return root.OpenFile(name, os.O_RDONLY, 0)
}

// openFileNoBlock opens a file by its name for reading.
func openFileNoBlock(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY, 0)
}
