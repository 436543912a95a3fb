package paimon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/internal/keyprefix"
	"github.com/resumekit/resumekit/resume/localblob"
	"github.com/resumekit/resumekit/resume/redact"
)

// Defaults for TableOptions fields left zero.
const (
	// DefaultConsumerRetries is how often an empty or half-written consumer
	// file is read before it is reported, as Paimon's Consumer.fromPath does.
	DefaultConsumerRetries = 10
	// DefaultConsumerRetryInterval is Paimon's pause between those reads.
	DefaultConsumerRetryInterval = 200 * time.Millisecond
	// DefaultHintRetries is how often a hint file that fails to read or parse
	// is read again before it counts as missing (HintFileUtils).
	DefaultHintRetries = 3
	// DefaultHintRetryInterval is Paimon's pause between hint reads.
	DefaultHintRetryInterval = time.Millisecond
	// DefaultMaxFileSize bounds every metadata file read (consumer, hint,
	// snapshot, schema): a larger object is refused before it is read.
	DefaultMaxFileSize = 4 << 20
	// DefaultConcurrency is how many consumer files Consumers reads at once.
	DefaultConcurrency = 8
)

// TableOptions configures a Table. A nil *TableOptions means defaults.
//
// S3 redirects: s3blob's opener (the one on blob.DefaultURLMux) uses the AWS SDK's HTTP
// client, which follows a 307 or 308 anywhere, also into another bucket:
// a table would read another bucket's consumer file as its own. This package
// imports no cloud SDK and cannot change that client. Package
// [github.com/resumekit/resumekit/resume/s3open] is s3blob's opener with
// redirects refused; register it on a blob.URLMux and pass that as
// [TableOptions.URLMux]:
//
//	mux := new(blob.URLMux)
//	mux.RegisterBucket(s3open.Scheme, new(s3open.URLOpener))
//	table, err := paimon.OpenTable(ctx, "s3://warehouse/default.db/orders?region=eu-west-1",
//		&paimon.TableOptions{URLMux: mux})
//
// A read that meets a redirect then fails with an error wrapping
// s3open.ErrRedirect. With [NewTable], open the bucket with s3open yourself.
type TableOptions struct {
	// Branch selects a branch: its files live under
	// <table>/branch/branch-<name>/. "" and "main" mean the main branch.
	Branch string
	// Name is the table's identifier in SQL texts, "db.table". When empty it
	// is derived from a path ending in <db>.db/<table>, else "default.<last
	// path element>".
	Name string
	// Location names the table in reports and positions (a URL with
	// credentials removed, say); default the key prefix, or for OpenTable the
	// URL without its query.
	Location string
	// ConsumerRetries and ConsumerRetryInterval control how an empty or
	// half-written consumer file is read again (Paimon: 10 tries, 200 ms
	// apart). Zero means the default; a negative interval means no pause.
	ConsumerRetries       int
	ConsumerRetryInterval time.Duration
	// HintRetries and HintRetryInterval control how a hint file that fails
	// to read or parse is read again before it counts as missing (Paimon: 3
	// tries, 1 ms apart).
	HintRetries       int
	HintRetryInterval time.Duration
	// MaxFileSize bounds every metadata file read; default DefaultMaxFileSize.
	MaxFileSize int64
	// Now returns the current time for idle-time checks; nil means time.Now.
	Now func() time.Time
	// Concurrency bounds how many consumer files Consumers reads at once;
	// default DefaultConcurrency.
	Concurrency int
	// Wait, when set, replaces every pause: between reads of a consumer or
	// hint file, and the observation of a consumer before a reset. It must
	// return nil after d, or ctx.Err() as soon as ctx ends. Tests count its
	// calls instead of sleeping.
	Wait func(ctx context.Context, d time.Duration) error
	// URLMux is the mux OpenTable opens a non-local URL with; nil means
	// blob.DefaultURLMux(). Register the opener of package
	// github.com/resumekit/resumekit/resume/s3open on it for s3:// reads that
	// refuse HTTP redirects (the AWS SDK, and so s3blob's default opener,
	// follows a 307 into another bucket). NewTable ignores it.
	URLMux *blob.URLMux
}

// Table is one Paimon table (one branch of it) in a bucket. It is safe for
// concurrent use and holds no cache: every call reads the store afresh.
//
// The formats follow Paimon itself (Consumer, SnapshotManager, HintFileUtils,
// SchemaManager, ChangelogManager): hints are verified and replaced by a
// listing when stale, an empty consumer file (Paimon rewrites it in place on
// object stores) is read again a few times before it is reported, and an
// earliest snapshot that disappears while it is read (expiry running) is
// skipped.
//
// Local tables: [OpenTable] opens a local table — a plain path or a file URL, whatever
// localblob.LocalPath calls local: file:///dir, file://localhost/dir,
// Flink's file:/dir, the scheme in any case (so a FILE:// URL never reaches
// a fileblob the program registered) — with package
// [github.com/resumekit/resumekit/resume/localblob]: a bucket over the
// table's directory, confined with os.Root: every key is resolved by the
// kernel relative to the directory's handle, so there is no gap between a
// check and the use. Nothing outside the table is
// read or written — a consumer/ folder linked out of it is refused, also
// when the link is swapped in while a consumer file is written — only
// regular files are read (a FIFO named consumer-<id> is refused, never
// waited on), and [Table.ResetConsumer] writes through a temporary file in
// consumer/ itself (named so that no consumer-* listing takes it) and a
// rename, with no sidecar file (so it works when TMPDIR is on another file
// system). A file URL naming another host, carrying user information, a
// query or a fragment is refused. With [NewTable] the caller chooses
// the bucket: use localblob for local tables; ResetConsumer refuses gocloud's
// fileblob, whose consumer-<id>.attrs sidecar Paimon would read as a
// consumer. Errors of OpenTable never quote credentials from the URL.
type Table struct {
	bucket *blob.Bucket
	owned  bool   // Close closes bucket (OpenTable)
	path   string // the table's prefix, "" or "dir/"
	base   string // path, or path + "branch/branch-<name>/"
	branch string // "main" or the branch name
	name   string
	disp   string
	o      TableOptions
}

// NewTable returns the table at path inside bucket. The caller keeps owning
// bucket: Table.Close does not close it. path is a key prefix such as
// "warehouse/default.db/orders" (leading and trailing slashes are ignored).
func NewTable(bucket *blob.Bucket, path string, opts *TableOptions) (*Table, error) {
	if bucket == nil {
		return nil, errors.New("paimon: NewTable: nil bucket")
	}
	var o TableOptions
	if opts != nil {
		o = *opts
	}
	if o.ConsumerRetries <= 0 {
		o.ConsumerRetries = DefaultConsumerRetries
	}
	if o.ConsumerRetryInterval == 0 {
		o.ConsumerRetryInterval = DefaultConsumerRetryInterval
	}
	if o.HintRetries <= 0 {
		o.HintRetries = DefaultHintRetries
	}
	if o.HintRetryInterval == 0 {
		o.HintRetryInterval = DefaultHintRetryInterval
	}
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = DefaultMaxFileSize
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	prefix := keyprefix.Normalize(path)
	for _, seg := range strings.Split(strings.TrimSuffix(prefix, "/"), "/") {
		if seg == ".." || seg == "." {
			return nil, fmt.Errorf("paimon: table path %s has a %q element", redact.QuoteKey(path), seg)
		}
	}
	t := &Table{bucket: bucket, path: prefix, base: prefix, branch: "main", o: o}
	if o.Branch != "" && o.Branch != "main" {
		if err := ValidateID("branch", o.Branch); err != nil {
			return nil, err
		}
		t.branch = o.Branch
		t.base = prefix + "branch/branch-" + o.Branch + "/"
	}
	t.name = o.Name
	if t.name == "" {
		src := prefix
		if src == "" {
			// The table is the bucket's root (a local table opened at its
			// own directory): its Location still names the path.
			src = keyprefix.Normalize(locationPath(o.Location))
		}
		t.name = deriveName(src)
	}
	t.disp = strings.TrimSuffix(prefix, "/")
	if o.Location != "" {
		t.disp = o.Location
	}
	return t, nil
}

// OpenTable opens the bucket of a gocloud URL whose path is the table, e.g.
// s3://warehouse/default.db/orders?region=eu-west-1, file:///data/wh/default.db/orders,
// or a plain local path. Table.Close closes the bucket.
//
// Local tables (plain paths and file:// URLs) are opened with localblob over
// the table's directory: nothing outside it is read or written (a consumer/
// folder linked out of the table is refused, also when the link is swapped
// in while a consumer file is written), only regular files are read, and a
// consumer file is written through a temporary file in consumer/ itself and
// renamed, never with a sidecar. Whether a URL is local is
// localblob.LocalPath's answer: file URLs in any case of the scheme and in
// Flink's spelling (file:/dir) are, so none reaches a fileblob the program
// may have registered; a file URL naming a host other than localhost,
// carrying user information, a query or a fragment is refused.
//
// Other URLs are opened with TableOptions.URLMux, default
// blob.DefaultURLMux(). s3:// URLs opened there with gocloud's s3blob follow
// HTTP redirects, as the AWS SDK does, also into another bucket; to refuse
// them, pass a URLMux with resume/s3open's URLOpener registered for s3.
//
// Errors never quote credentials from rawURL (see package redact), and a URL
// whose query holds a URL with user information (endpoint=http://u:pw@h) is
// refused (redact.CheckNested): the storage SDK would quote it in the error
// of every later call.
func OpenTable(ctx context.Context, rawURL string, opts *TableOptions) (*Table, error) {
	red := redact.New(rawURL)
	var o TableOptions
	if opts != nil {
		o = *opts
	}
	mux := o.URLMux
	if mux == nil {
		mux = blob.DefaultURLMux()
	}
	var (
		b      *blob.Bucket
		prefix string
		disp   string
		name   string
	)
	if abs, local, err := localblob.LocalPath(rawURL); err != nil {
		return nil, red.Error(fmt.Errorf("paimon: open table: %w", err))
	} else if local {
		b, err = localblob.OpenBucket(abs, nil)
		if err != nil {
			return nil, fmt.Errorf("paimon: open table: %w", err)
		}
		disp = abs
		name = deriveName(keyprefix.Normalize(filepath.ToSlash(abs)))
	} else {
		if err := redact.CheckNested(rawURL); err != nil {
			return nil, red.Error(fmt.Errorf("paimon: table URL %w", err))
		}
		u, err := url.Parse(rawURL)
		if err != nil {
			return nil, red.Error(fmt.Errorf("paimon: table URL %s: %w", redact.Quote(redact.URL(rawURL)), redact.ParseError(err)))
		}
		switch {
		case len(u.Host) > maxHost:
			// No store names a bucket so (S3 and Azure: 63 bytes, GCS: 222).
			return nil, red.Error(fmt.Errorf("paimon: table URL %s: bucket name of %d bytes, longer than any host name (%d)", redact.Quote(redact.URL(rawURL)), len(u.Host), maxHost))
		case !mux.ValidBucketScheme(u.Scheme):
			return nil, red.Error(fmt.Errorf("paimon: table URL %s: no driver for scheme %s: import its gocloud package (gocloud.dev/blob/s3blob, gcsblob, azureblob, memblob) or pass a TableOptions.URLMux that has it", redact.Quote(redact.URL(rawURL)), redact.Quote(u.Scheme)))
		}
		prefix = u.Path
		u.Path, u.RawPath = "", ""
		disp = u.Scheme + "://" + u.Host + "/" + strings.Trim(prefix, "/")
		b, err = mux.OpenBucket(ctx, u.String())
		if err != nil {
			// The driver's error may quote the whole URL: masked, then cut.
			return nil, fmt.Errorf("paimon: open %s: %w", redact.QuoteKey(disp), cutText(red.Error(err)))
		}
	}
	if o.Name == "" {
		o.Name = name
	}
	t, err := NewTable(b, prefix, &o)
	if err != nil {
		b.Close()
		return nil, red.Error(err)
	}
	t.owned = true
	if t.o.Location == "" {
		t.disp = disp
	}
	return t, nil
}

// maxHost is the longest host name (RFC 1035): a longer bucket name in a
// table URL is refused.
const maxHost = 255

// Close closes the bucket if the table was opened with OpenTable; it does
// nothing for tables made with NewTable.
func (t *Table) Close() error {
	if t.owned {
		return t.bucket.Close()
	}
	return nil
}

// Path returns the table's key prefix ("" or "dir/").
func (t *Table) Path() string { return t.path }

// Branch returns the branch name, "main" for the main branch.
func (t *Table) Branch() string { return t.branch }

// Name returns the table's SQL identifier, "db.table".
func (t *Table) Name() string { return t.name }

// SQLName returns the identifier SQL statements use for this branch:
// "db.table", or "db.table$branch_<name>" for a branch.
func (t *Table) SQLName() string {
	if t.branch == "main" {
		return t.name
	}
	return t.name + "$branch_" + t.branch
}

// String returns the table's location for reports.
func (t *Table) String() string {
	if t.branch == "main" {
		return t.disp
	}
	return t.disp + " (branch " + t.branch + ")"
}

// Bucket returns the bucket the table lives in.
func (t *Table) Bucket() *blob.Bucket { return t.bucket }

func (t *Table) snapshotDir() string { return t.base + "snapshot/" }
func (t *Table) snapshotKey(id int64) string {
	return fmt.Sprintf("%ssnapshot/snapshot-%d", t.base, id)
}
func (t *Table) changelogDir() string { return t.base + "changelog/" }
func (t *Table) changelogKey(id int64) string {
	return fmt.Sprintf("%schangelog/changelog-%d", t.base, id)
}
func (t *Table) consumerDir() string          { return t.base + "consumer/" }
func (t *Table) consumerKey(id string) string { return t.base + "consumer/consumer-" + id }
func (t *Table) schemaDir() string            { return t.base + "schema/" }
func (t *Table) schemaKey(id int64) string    { return fmt.Sprintf("%sschema/schema-%d", t.base, id) }

// locationPath returns the path of a location: a URL's path, or the
// location itself.
func locationPath(loc string) string {
	if i := strings.Index(loc, "://"); i >= 0 {
		if u, err := url.Parse(loc); err == nil {
			return u.Path
		}
		rest := loc[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			return rest[j:]
		}
		return ""
	}
	return filepath.ToSlash(loc)
}

func deriveName(prefix string) string {
	parts := strings.Split(strings.TrimSuffix(prefix, "/"), "/")
	last := parts[len(parts)-1]
	if last == "" {
		last = "t"
	}
	if len(parts) >= 2 && strings.HasSuffix(parts[len(parts)-2], ".db") && len(parts[len(parts)-2]) > 3 {
		return strings.TrimSuffix(parts[len(parts)-2], ".db") + "." + last
	}
	return "default." + last
}

// errNotFound marks a read of an object that does not exist; callers turn it
// into the right sentinel.
var errNotFound = errors.New("not found")

// read returns the content and modification time of key, at most
// MaxFileSize bytes: a larger object is an ErrCorrupt error before its
// content is read. A missing object gives an error wrapping errNotFound.
func (t *Table) read(ctx context.Context, key string) ([]byte, time.Time, error) {
	if err := ctx.Err(); err != nil {
		return nil, time.Time{}, fmt.Errorf("paimon: read %s: %w", key, err)
	}
	r, err := t.bucket.NewReader(ctx, key, nil)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			return nil, time.Time{}, fmt.Errorf("paimon: %s: %w", key, errNotFound)
		}
		return nil, time.Time{}, fmt.Errorf("paimon: read %s: %w", key, ctxErr(ctx, err))
	}
	defer r.Close()
	if r.Size() > t.o.MaxFileSize {
		return nil, time.Time{}, corruptf(key, "%d bytes, larger than the %d-byte limit", r.Size(), t.o.MaxFileSize)
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(r, t.o.MaxFileSize+1))
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("paimon: read %s: %w", key, ctxErr(ctx, err))
	}
	if n > t.o.MaxFileSize {
		return nil, time.Time{}, corruptf(key, "larger than the %d-byte limit", t.o.MaxFileSize)
	}
	return buf.Bytes(), r.ModTime(), nil
}

// exists reports whether key exists.
func (t *Table) exists(ctx context.Context, key string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("paimon: stat %s: %w", key, err)
	}
	ok, err := t.bucket.Exists(ctx, key)
	if err != nil {
		return false, fmt.Errorf("paimon: stat %s: %w", key, ctxErr(ctx, err))
	}
	return ok, nil
}

// ctxErr makes sure an error caused by the context's end wraps ctx.Err(),
// whatever the driver turned it into.
func ctxErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w (%v)", cerr, err)
	}
	return err
}

// pause waits d or until ctx ends, through TableOptions.Wait when set.
func (t *Table) pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if t.o.Wait != nil {
		if err := t.o.Wait(ctx, d); err != nil {
			return err
		}
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

func gcerrorsNotFound(err error) bool { return gcerrors.Code(err) == gcerrors.NotFound }
