// Package localblob is a gocloud bucket over a local directory, confined with
// os.Root.
//
// resumekit opens every local path through it — paimon.OpenTable, resumectl's
// local paths and file:// URLs, and through resumectl flinkckpt's local
// checkpoint and savepoint roots — because it writes a Paimon consumer file
// and says "this is safe": it must not read or write where it was not
// pointed, and must not hang on what it finds.
//
//	b, err := localblob.OpenBucket("/data/warehouse/db.db/orders", nil)
//	if err != nil { ... }
//	defer b.Close()
//	data, err := b.ReadAll(ctx, "consumer/consumer-job") // <dir>/consumer/consumer-job
//
// It is about storage, not about restart decisions; package resume does not
// import it.
//
// # Which paths are local
//
// [LocalPath] is the one answer to "does this location go through
// localblob?": plain paths, and file URLs in every spelling — file:///dir,
// file://localhost/dir, Flink's file:/dir, the scheme in any case (gocloud
// lower-cases a scheme, so FILE:// left to it would reach fileblob, if the
// program links it). A file URL naming a host, user information, a query or
// a fragment is refused with [ErrNotLocal], its password never quoted.
//
// A single file a user names — a compiled plan — is no directory to confine
// keys to: [OpenFile] opens it following the links of the name the user
// chose, but only if it is a regular file, without ever waiting on a FIFO.
//
// # Confinement
//
// Every key is opened relative to an [os.Root] for the directory, so a key
// that would resolve outside it — through "..", an absolute or relative
// symbolic link, or a link swapped in while the call runs — is refused, with
// no gap between a check and the use (the kernel resolves each component
// relative to the directory handle). Links that stay inside the directory are
// followed.
//
// Keys are clean slash-separated relative paths: no empty, "." or ".."
// segment, no leading "/", no NUL (and on Windows no "\" or ":"). Reading or
// deleting another key reports NotFound (such an object cannot exist here);
// writing one is an InvalidArgument error. gocloud's fileblob escapes such
// keys into names like "__0x2f__" and unescapes names back into keys when it
// lists; localblob does neither, so a file name is its key, byte for byte.
//
// # Only regular files
//
// Reads open regular files only. A named pipe, device or socket — say a FIFO
// planted as consumer/consumer-job or chk-7/_metadata — is refused before it
// is opened when a stat shows it, and otherwise opened without blocking
// (O_NONBLOCK) and refused after an fstat: a read never waits on a writer
// that does not come. Listings still show such entries, so that the refusal
// is reported rather than the entry silently skipped.
//
// # Writes
//
// A write goes to a temporary file in the target's own directory, named
// ".<name>.<random>.tmp" (so that no Paimon, Flink or resumekit listing takes
// it for a consumer-*, snapshot-* or _metadata file), is synced, and is then
// renamed over the target: readers see the old content or the new, never a
// part, and the write works when TMPDIR is on another file system. The
// temporary file is removed on every failure path, including a cancelled
// context. IfNotExist is honoured with a hard link (atomic).
//
// localblob never writes a sidecar: attributes it cannot store in the file
// system are dropped (ContentType, CacheControl, ContentDisposition,
// ContentEncoding, ContentLanguage) or refused (user Metadata, an
// InvalidArgument error, since a caller who sets it expects to read it back).
// Attributes report a ContentType from the file name's extension, or
// application/octet-stream, and the file's own modification time.
//
// # Listings
//
// A listing with the "/" delimiter reads one directory (one os.ReadDir of
// exactly that directory, never a walk of the tree) and honours any page
// size; gocloud's iterator asks for everything at once. When a caller pages
// through a large directory with small pages, the sorted entries of the first
// page's read are kept for the following page tokens (a few directories at a
// time), so a directory is read once per listing. Keys come back in the
// lexicographic order gocloud requires. Listings without a delimiter walk the
// tree below the prefix in that order; they do not descend into symbolic
// links to directories, which a "/" listing shows as directories.
//
// [StatKeys] answers what Attributes would for many keys at once, opening
// each of their directories once and spending one system call per key
// (flinkckpt checks a checkpoint's shared files with it).
//
// Modification times are the files' own. ListObject, Attributes and Reader
// answer As(*os.FileInfo); the bucket answers As(*os.FileInfo) with the
// directory's and As(**os.Root) with its root (for reading only; do not
// close it). That pair is how a caller tells localblob from fileblob, which
// answers only the first.
//
// # Errors
//
// Errors name the key and wrap [ErrOutside] (the key leads outside the
// directory; gcerrors code PermissionDenied), [ErrNotRegular] (not a regular
// file; FailedPrecondition) or [ErrInvalidKey]; check them with errors.Is.
// [LocalPath]'s refusals wrap [ErrNotLocal].
// A missing file is gcerrors.NotFound, as gocloud requires.
package localblob
