package localblob

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"
)

// maxTempBase bounds the part of the target's name a temporary name repeats,
// so that ".<name>.<16 hex>.tmp" stays within 255 bytes.
const maxTempBase = 200

// tempName returns a fresh temporary name for base: it starts with "." (no
// listing of consumer-*, snapshot-* or _metadata takes it) and ends in
// ".tmp".
func tempName(base string) string {
	for len(base) > maxTempBase {
		_, n := utf8.DecodeLastRuneInString(base)
		base = base[:len(base)-n]
	}
	var r [8]byte
	_, _ = rand.Read(r[:])
	return "." + base + "." + hex.EncodeToString(r[:]) + ".tmp"
}

// NewTypedWriter writes key through a temporary file in key's directory,
// renamed over key on Close. The directory is opened once, as a root of its
// own: the temporary file, the rename and any cleanup all happen in that
// directory, whatever is renamed or linked in its place meanwhile.
func (b *bucket) NewTypedWriter(ctx context.Context, key, _ string, opts *driver.WriterOptions) (driver.Writer, error) {
	b.note(key)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := checkKey(key)
	if err != nil {
		return nil, badKey("write", key, err, true)
	}
	if len(opts.Metadata) > 0 {
		return nil, &Error{Op: "write", Key: key, code: gcerrors.InvalidArgument,
			Err: errors.New("user metadata cannot be stored without a sidecar file, and localblob writes none: refused")}
	}
	dir, base := filepath.Split(p)
	dir = filepath.Clean(dir) // "." for the root
	if dir != "." {
		if err := mkdirAll(b.root, dir); err != nil {
			return nil, b.fail("write", key, err)
		}
	}
	d, err := b.root.OpenRoot(dir)
	if err != nil {
		return nil, b.fail("write", key, err)
	}
	var f *os.File
	var tmp string
	for try := 0; ; try++ {
		tmp = tempName(base)
		f, err = d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || try == 10 {
			d.Close()
			return nil, b.fail("write", key, err)
		}
	}
	// The file gets 0644, or the mode of the file it replaces, whatever
	// the umask (under umask 000 it was created 0666).
	mode := fs.FileMode(0o644)
	if fi, err := d.Stat(base); err == nil && fi.Mode().IsRegular() {
		mode = fi.Mode().Perm()
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		_ = d.Remove(tmp)
		d.Close()
		return nil, b.fail("write", key, err)
	}
	w := &writer{ctx: ctx, b: b, d: d, f: f, tmp: tmp, base: base, key: key, ifNotExist: opts.IfNotExist}
	if opts.BeforeWrite != nil {
		if err := opts.BeforeWrite(func(i any) bool {
			switch p := i.(type) {
			case **os.File:
				*p = f
				return true
			case **WriteCondition:
				w.cond = &WriteCondition{}
				*p = w.cond
				return true
			}
			return false
		}); err != nil {
			w.abort()
			return nil, err
		}
	}
	return w, nil
}

// mkdirAll creates dir (an operating system path relative to root) and its
// missing parents, each new directory 0755 whatever the umask: not 0777
// under umask 000 (writable by everyone), not 0700 under umask 077 (a
// Flink or Paimon process of another user could not read the table).
// Directories that already exist keep their mode.
func mkdirAll(root *os.Root, dir string) error {
	if fi, err := root.Stat(dir); err == nil && fi.IsDir() {
		return nil
	}
	if parent := filepath.Dir(dir); parent != "." && parent != dir {
		if err := mkdirAll(root, parent); err != nil {
			return err
		}
	}
	err := root.Mkdir(dir, 0o755)
	switch {
	case errors.Is(err, fs.ErrExist):
		// Created meanwhile by another writer, or not a directory:
		// opening it says which.
		return nil
	case err != nil:
		return err
	}
	return root.Chmod(dir, 0o755)
}

// WriteCondition makes a write a compare-and-swap: asked for through
// blob.WriterOptions.BeforeWrite (As with a **WriteCondition), the writer
// hands out one whose Check the caller sets. On Close the writer takes an
// exclusive lock on the target's directory (flock(2); other conditional
// writers in any process wait for it), reads the target as it is then
// (exists false when there is none) and calls Check: a nil error renames
// the new file over the target before the lock is released; an error
// leaves the target as it is, and Close returns an error of code
// gcerrors.FailedPrecondition wrapping it. Writes without a condition take
// no lock. Outside Unix a conditional write is refused.
type WriteCondition struct {
	// Check judges the target's current content.
	Check func(current []byte, exists bool) error
}

// maxConditionRead bounds what a WriteCondition reads of the target.
const maxConditionRead = 1 << 20

type writer struct {
	cond       *WriteCondition // nil: an unconditional write
	ctx        context.Context
	b          *bucket
	d          *os.Root // the target's directory
	f          *os.File // the temporary file in it
	tmp, base  string
	key        string
	ifNotExist bool
}

func (w *writer) Write(p []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	return w.f.Write(p)
}

// abort removes the temporary file.
func (w *writer) abort() {
	w.f.Close()
	_ = w.d.Remove(w.tmp)
	w.d.Close()
}

// Close syncs the temporary file and renames it over the target, or removes
// it when anything failed or the context ended.
func (w *writer) Close() error {
	var err error
	if !w.b.opts.NoSync {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = w.ctx.Err()
	}
	if err == nil {
		err = w.commit()
	}
	if err != nil {
		_ = w.d.Remove(w.tmp)
		w.d.Close()
		var e *Error
		if errors.As(err, &e) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return w.b.fail("write", w.key, err)
	}
	return w.d.Close()
}

func (w *writer) commit() error {
	if w.cond != nil && w.cond.Check != nil {
		unlock, err := lockDir(w.d)
		if err != nil {
			return err
		}
		defer unlock()
		cur, exists, err := w.current()
		if err != nil {
			return err
		}
		if err := w.cond.Check(cur, exists); err != nil {
			return &Error{Op: "write", Key: w.key, Err: fmt.Errorf("condition not met: %w", err), code: gcerrors.FailedPrecondition}
		}
	}
	if !w.ifNotExist {
		return w.d.Rename(w.tmp, w.base)
	}
	// A hard link fails when the target exists: an atomic "if not exists".
	err := w.d.Link(w.tmp, w.base)
	switch {
	case err == nil:
		return w.d.Remove(w.tmp)
	case errors.Is(err, fs.ErrExist):
		return &Error{Op: "write", Key: w.key, Err: fmt.Errorf("already exists (IfNotExist)"), code: gcerrors.FailedPrecondition}
	}
	// No hard links on this file system: check, then rename.
	if _, serr := w.d.Lstat(w.base); serr == nil {
		return &Error{Op: "write", Key: w.key, Err: fmt.Errorf("already exists (IfNotExist)"), code: gcerrors.FailedPrecondition}
	}
	return w.d.Rename(w.tmp, w.base)
}

// current reads the target for a WriteCondition, at most maxConditionRead
// bytes (more is an error).
func (w *writer) current() ([]byte, bool, error) {
	f, err := openNoBlock(w.d, w.base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, false, err
	} else if !fi.Mode().IsRegular() {
		return nil, false, &Error{Op: "write", Key: w.key, Err: errNotRegularTarget, code: gcerrors.FailedPrecondition}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxConditionRead+1))
	if err != nil {
		return nil, false, err
	}
	if len(data) > maxConditionRead {
		return nil, false, &Error{Op: "write", Key: w.key, Err: fmt.Errorf("the current file is larger than %d bytes, too large for a conditional write", maxConditionRead), code: gcerrors.FailedPrecondition}
	}
	return data, true, nil
}

var errNotRegularTarget = errors.New("the current target is not a regular file: a conditional write refuses it")

// Copy copies a regular file to dstKey, atomically as a write.
func (b *bucket) Copy(ctx context.Context, dstKey, srcKey string, opts *driver.CopyOptions) error {
	b.note(srcKey) // NewTypedWriter notes dstKey
	if err := ctx.Err(); err != nil {
		return err
	}
	if opts.BeforeCopy != nil {
		if err := opts.BeforeCopy(func(any) bool { return false }); err != nil {
			return err
		}
	}
	src, _, err := b.openRegular("copy", srcKey)
	if err != nil {
		return err
	}
	defer src.Close()
	dw, err := b.NewTypedWriter(ctx, dstKey, "", &driver.WriterOptions{})
	if err != nil {
		return err
	}
	w := dw.(*writer)
	if _, err := io.Copy(w.f, src); err != nil {
		w.abort()
		return b.fail("copy", srcKey, err)
	}
	return w.Close()
}

// Delete removes the file (or link, pipe, …) at key; never a directory.
func (b *bucket) Delete(ctx context.Context, key string, opts *driver.DeleteOptions) error {
	b.note(key)
	if err := ctx.Err(); err != nil {
		return err
	}
	if opts.BeforeDelete != nil {
		if err := opts.BeforeDelete(func(any) bool { return false }); err != nil {
			return err
		}
	}
	p, err := checkKey(key)
	if err != nil {
		return badKey("delete", key, err, false)
	}
	fi, err := b.root.Lstat(p)
	if err != nil {
		return b.fail("delete", key, err)
	}
	if fi.IsDir() {
		return &Error{Op: "delete", Key: key, Err: errIsDir, code: gcerrors.NotFound}
	}
	if err := b.root.Remove(p); err != nil {
		return b.fail("delete", key, err)
	}
	return nil
}
