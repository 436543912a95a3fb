package localblob

import (
	"errors"
	"os"
)

// OpenFile opens for reading a single file a user named — a compiled plan,
// say — rather than a key under a directory: it is confined to that file.
// Symbolic links in the name are followed (the user chose the path; there
// is no directory to stay inside), but only a regular file is opened: a
// named pipe, device or socket is refused with [ErrNotRegular] at once,
// never waited on (it is opened without blocking and checked by fstat, so
// one swapped in after a stat is refused too). Errors are *Error values
// naming the file.
func OpenFile(name string) (*os.File, error) {
	fail := func(err error) error {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // it repeats the name
		}
		return &Error{Op: "open", Key: name, Err: err}
	}
	if fi, err := os.Stat(name); err != nil {
		return nil, fail(err)
	} else if !fi.Mode().IsRegular() {
		return nil, notRegular("open", name, fi.Mode())
	}
	f, err := openFileNoBlock(name)
	if err != nil {
		return nil, fail(err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fail(err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegular("open", name, fi.Mode())
	}
	return f, nil
}
