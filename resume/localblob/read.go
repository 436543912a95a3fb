package localblob

import (
	"context"
	"errors"
	"io"
	"mime"
	"os"
	"path"

	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"
)

// contentType is what Attributes report: localblob stores no content type.
func contentType(key string) string {
	if t := mime.TypeByExtension(path.Ext(key)); t != "" {
		return t
	}
	return "application/octet-stream"
}

var errIsDir = errors.New("a directory, not an object")

// stat returns the file info of key, which must be a regular file. Links
// inside the directory are followed.
func (b *bucket) stat(op, key string) (os.FileInfo, error) {
	p, err := checkKey(key)
	if err != nil {
		return nil, badKey(op, key, err, false)
	}
	fi, err := b.root.Stat(p)
	if err != nil {
		return nil, b.fail(op, key, err)
	}
	if fi.IsDir() {
		return nil, &Error{Op: op, Key: key, Err: errIsDir, code: gcerrors.NotFound}
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(op, key, fi.Mode())
	}
	return fi, nil
}

// openRegular opens key for reading if it is a regular file. The stat before
// the open keeps devices and pipes from being opened at all; the open itself
// never blocks (O_NONBLOCK), and the fstat after it catches a file swapped in
// between.
func (b *bucket) openRegular(op, key string) (*os.File, os.FileInfo, error) {
	if _, err := b.stat(op, key); err != nil {
		return nil, nil, err
	}
	p, _ := checkKey(key) // stat checked it
	f, err := openNoBlock(b.root, p)
	if err != nil {
		return nil, nil, b.fail(op, key, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, b.fail(op, key, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(op, key, fi.Mode())
	}
	return f, fi, nil
}

// Attributes returns the size and modification time of a regular file.
func (b *bucket) Attributes(ctx context.Context, key string) (*driver.Attributes, error) {
	b.note(key)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fi, err := b.stat("stat", key)
	if err != nil {
		return nil, err
	}
	return &driver.Attributes{
		ContentType: contentType(key),
		ModTime:     fi.ModTime(),
		Size:        fi.Size(),
		AsFunc:      fileInfoAs(fi),
	}, nil
}

// fileInfoAs answers As(*os.FileInfo).
func fileInfoAs(fi os.FileInfo) func(any) bool {
	return func(i any) bool {
		p, ok := i.(*os.FileInfo)
		if !ok || fi == nil {
			return false
		}
		*p = fi
		return true
	}
}

// NewRangeReader opens a regular file and reads length bytes from offset
// (to the end when length is negative).
func (b *bucket) NewRangeReader(ctx context.Context, key string, offset, length int64, opts *driver.ReaderOptions) (driver.Reader, error) {
	b.note(key)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, fi, err := b.openRegular("read", key)
	if err != nil {
		return nil, err
	}
	if opts.BeforeRead != nil {
		if err := opts.BeforeRead(func(i any) bool {
			p, ok := i.(**os.File)
			if !ok {
				return false
			}
			*p = f
			return true
		}); err != nil {
			f.Close()
			return nil, err
		}
	}
	var r io.Reader = f
	if offset > 0 {
		if _, err := f.Seek(offset, io.SeekStart); err != nil {
			f.Close()
			return nil, b.fail("read", key, err)
		}
	}
	if length >= 0 {
		r = io.LimitReader(f, length)
	}
	return &reader{r: r, f: f, fi: fi, attrs: driver.ReaderAttributes{
		ContentType: contentType(key), ModTime: fi.ModTime(), Size: fi.Size(),
	}}, nil
}

type reader struct {
	r     io.Reader
	f     *os.File
	fi    os.FileInfo
	attrs driver.ReaderAttributes
}

func (r *reader) Read(p []byte) (int, error)           { return r.r.Read(p) }
func (r *reader) Close() error                         { return r.f.Close() }
func (r *reader) Attributes() *driver.ReaderAttributes { return &r.attrs }

// As answers *os.FileInfo.
func (r *reader) As(i any) bool { return fileInfoAs(r.fi)(i) }
