//go:build !unix

package localblob

import (
	"io/fs"
	"os"
)

// readDirEntries reads the entries of a directory opened through the root.
func readDirEntries(f *os.File) ([]fs.DirEntry, error) { return f.ReadDir(-1) }
