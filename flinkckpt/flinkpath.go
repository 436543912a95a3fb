package flinkckpt

import (
	"context"
	"fmt"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/resumekit/resumekit/flinkckpt/metadata"
	"github.com/resumekit/resumekit/internal/keyprefix"
	"github.com/resumekit/resumekit/resume/redact"
)

// mapping translates Flink file-system URIs to bucket keys: the URI root
// (ending in "/") corresponds to the bucket key prefix keyPrefix ("" or
// ending in "/").
type mapping struct {
	root      string
	keyPrefix string
}

// key maps a Flink URI to a bucket key.
func (m *mapping) key(uri string) (string, bool) {
	if m == nil || !strings.HasPrefix(uri, m.root) {
		return "", false
	}
	return m.keyPrefix + uri[len(m.root):], true
}

// uri maps a bucket key to its Flink URI.
func (m *mapping) uri(key string) (string, bool) {
	if m == nil || !strings.HasPrefix(key, m.keyPrefix) {
		return "", false
	}
	return m.root + key[len(m.keyPrefix):], true
}

// canonicalURI spells a Flink file-system URI one way, so that references
// and roots compare as strings:
//   - scheme:/p becomes scheme:///p: Flink writes Path.toString(), which
//     leaves out "//" when the URI has no authority (org.apache.flink.core.
//     fs.Path#toString), so a checkpoint dir file:///data/ck gives
//     references file:/data/ck/<job>/shared/…;
//   - file://localhost/p becomes file:///p (the local file system either
//     way);
//   - with a default file system dfs (hdfs://ns), scheme:///p of its scheme
//     becomes hdfs://ns/p: paths without an authority live there;
//   - the scheme is lower case (Flink looks file systems up by the
//     lower-cased scheme, FileSystem#getUnguardedFileSystem).
//
// Anything else, including strings that are not URIs, is returned as it
// is.
func canonicalURI(u string, dfs defaultFS) string {
	i := strings.IndexByte(u, ':')
	if i <= 0 || !validScheme(u[:i]) {
		return u
	}
	scheme, rest := u[:i], u[i+1:]
	changed := false
	if lower := strings.ToLower(scheme); lower != scheme {
		scheme, changed = lower, true
	}
	switch {
	case strings.HasPrefix(rest, "//"):
	case strings.HasPrefix(rest, "/"):
		rest, changed = "//"+rest, true
	default:
		return u // opaque (scheme:p): not a file-system path
	}
	if scheme == "file" && strings.HasPrefix(rest, "//localhost/") {
		rest, changed = "//"+rest[len("//localhost"):], true
	}
	if dfs.scheme == scheme && strings.HasPrefix(rest, "///") {
		rest, changed = "//"+dfs.authority+rest[2:], true
	}
	if !changed {
		return u
	}
	return scheme + ":" + rest
}

// validScheme reports whether s is a URI scheme (RFC 3986: a letter, then
// letters, digits, "+", "-" or ".").
func validScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// schemeOf returns the scheme of a canonical URI ("" for none).
func schemeOf(u string) string {
	i := strings.Index(u, "://")
	if i <= 0 {
		return ""
	}
	return u[:i]
}

// isFlinkURI reports whether u is a file-system URI with a path, in either
// spelling (s3a://bucket/ck, file:/data/ck, hdfs:///flink).
func isFlinkURI(u string) bool {
	return authorityEnd(strings.TrimSuffix(canonicalURI(u, defaultFS{}), "/")+"/") >= 0
}

// defaultFS is a parsed Options.DefaultFS.
type defaultFS struct{ scheme, authority string }

func parseDefaultFS(s string) (defaultFS, error) {
	c := strings.TrimSuffix(canonicalURI(s, defaultFS{}), "/")
	i := strings.Index(c, "://")
	if i <= 0 || !validScheme(c[:i]) || c[i+3:] == "" || strings.ContainsAny(c[i+3:], "/?#") {
		return defaultFS{}, fmt.Errorf("flinkckpt: default file system %s is not scheme://authority (e.g. hdfs://ns)", redact.QuoteKey(redact.URL(s)))
	}
	return defaultFS{scheme: c[:i], authority: c[i+3:]}, nil
}

// authorityEnd returns the index just past "scheme://authority/" in uri, or
// -1 when uri has no scheme.
func authorityEnd(uri string) int {
	i := strings.Index(uri, "://")
	if i <= 0 {
		return -1
	}
	j := strings.IndexByte(uri[i+3:], '/')
	if j < 0 {
		return -1
	}
	return i + 3 + j + 1
}

// givenMapping builds the mapping for a given Flink root. The root's path
// may end with the prefix itself or any of its ancestors (s3a://bucket/ck
// for prefix "ck/<job>/", the value of execution.checkpointing.dir), the
// longest match winning; otherwise it is the URI of the bucket root
// (s3a://bucket/). A segment equal to entropyKey is dropped (Flink writes
// _metadata at the path without it). The pair is then lifted while the last
// segments of both agree, so that entropy-injected files, which sit next to
// the root rather than under it, still map. A root that names a path inside
// or beside the prefix (s3a://bucket/ck/other for prefix "ck/<job>/") cannot
// be reconciled and is an error, as is a mapping that would not send the
// prefix to a URI ending with it.
func givenMapping(flinkRoot, prefix, entropyKey string, dfs defaultFS) (*mapping, error) {
	root := strings.TrimSuffix(canonicalURI(flinkRoot, dfs), "/") + "/"
	if entropyKey != "" {
		root = strings.Replace(root, "/"+entropyKey+"/", "/", 1)
	}
	ae := authorityEnd(root)
	if ae < 0 {
		return nil, fmt.Errorf("flinkckpt: Flink root %s is not a file-system URI such as s3a://bucket/path", redact.QuoteKey(redact.URL(flinkRoot)))
	}
	path := root[ae-1:] // starts with "/"
	var m *mapping
	for a := prefix; a != ""; a = parentDir(a) {
		if strings.HasSuffix(path, "/"+a) {
			m = &mapping{root: root, keyPrefix: a}
			break
		}
	}
	if m == nil {
		if first := firstSegment(prefix); first != "" && strings.Contains(path, "/"+first) {
			return nil, fmt.Errorf("flinkckpt: Flink root %s names a path inside or beside %s, not %[2]s itself, one of its parent dirs, or the bucket root: pass the Flink URI of one of those (e.g. the value of execution.checkpointing.dir)",
				redact.QuoteKey(redact.URL(flinkRoot)), redact.QuoteKey(prefix))
		}
		m = &mapping{root: root}
	}
	m = lift(m)
	if u, ok := m.uri(prefix); !ok || (prefix != "" && !strings.HasSuffix(u, "/"+prefix)) {
		return nil, fmt.Errorf("flinkckpt: Flink root %s does not map %s to a Flink path ending with it", redact.QuoteKey(redact.URL(flinkRoot)), redact.QuoteKey(prefix))
	}
	return m, nil
}

// firstSegment returns the first segment of a dir key with its slash
// ("a/b/" → "a/", "" → "").
func firstSegment(dir string) string {
	i := strings.IndexByte(dir, '/')
	if i < 0 {
		return ""
	}
	return dir[:i+1]
}

func lift(m *mapping) *mapping {
	minRoot := authorityEnd(m.root)
	for m.keyPrefix != "" {
		kp := strings.TrimSuffix(m.keyPrefix, "/")
		seg := kp[strings.LastIndexByte(kp, '/')+1:]
		if !strings.HasSuffix(m.root, "/"+seg+"/") || len(m.root)-len(seg)-1 < minRoot {
			break
		}
		m = &mapping{root: m.root[:len(m.root)-len(seg)-1], keyPrefix: m.keyPrefix[:len(m.keyPrefix)-len(seg)-1]}
	}
	return m
}

// inference is an inferred mapping and, when the root it found has one
// segment between the authority and the snapshot's key, the other reading
// of that segment (entropy vs a real dir): settle picks between them.
type inference struct {
	m, alt *mapping
	probe  string // an absolute reference that anchored to the root
	// tail: the root comes from a tail of the snapshot's key (a copy
	// reading: no reference names its whole key).
	tail bool
}

// probeOrRoot returns a reference the inference anchored on, or its root.
func (inf *inference) probeOrRoot() string {
	if inf.probe != "" {
		return inf.probe
	}
	return inf.m.root
}

// inferMapping infers the mapping from the absolute references of the
// snapshot at key dir (ending in "/"): the key of dir or of one of its
// ancestors (or a tail of it, for copies into another bucket path) appears
// in the URIs. When the roots found differ by exactly one segment, that
// segment is entropy (s3.entropy.key): the root is the common part and the
// entropy segment belongs to the key. When all references agree on a root
// with one segment after the authority (s3a://bucket/Xa1/ck/…: one
// entropy-injected file, or several sharing a segment), that segment is
// either a dir of the bucket's root or entropy; the first reading is tried
// first (the entropy reading first when entropyKey is set) and the other is
// kept as the alternative. It returns nil when nothing matches.
func inferMapping(dir string, uris []string, entropyKey string) *inference {
	count := map[mapping]int{}
	probe := map[mapping]string{}
	var order []mapping
	// References that name the snapshot's whole key (keyPrefix "") outvote
	// copy readings (a tail of the key: the snapshot or its shared files
	// copied from elsewhere, or a migrated checkpoint root's shared files
	// under the same job id): otherwise the verdict would flip with the
	// ratio of old to new files.
	full := false
	anchors := make([]*mapping, len(uris))
	for i, u := range uris {
		anchors[i] = anchor(dir, u)
		full = full || anchors[i] != nil && anchors[i].keyPrefix == ""
	}
	for i, u := range uris {
		if m := anchors[i]; m != nil && (!full || m.keyPrefix == "") {
			if count[*m] == 0 {
				order = append(order, *m)
				probe[*m] = u
			}
			count[*m]++
		}
	}
	if len(order) == 0 {
		return nil
	}
	first := order[0]
	if len(order) > 1 {
		// Entropy: every root is scheme://authority/ + common + one segment,
		// with the same key prefix.
		common := first.root
		entropy := true
		for _, m := range order[1:] {
			common = commonSegments(common, m.root)
			if m.keyPrefix != first.keyPrefix {
				entropy = false
			}
		}
		if ae := authorityEnd(first.root); entropy && ae > 0 && len(common) >= ae {
			for _, m := range order {
				if strings.Count(m.root[len(common):], "/") != 1 {
					entropy = false
				}
			}
			if entropy {
				return &inference{m: &mapping{root: common, keyPrefix: first.keyPrefix}}
			}
		}
	}
	// Otherwise the root most references agree on (ties: first seen);
	// references elsewhere (another bucket or scheme) stay unmapped.
	best := first
	for _, m := range order[1:] {
		if count[m] > count[best] {
			best = m
		}
	}
	inf := &inference{m: lift(&best), probe: probe[best], tail: best.keyPrefix != ""}
	if ae := authorityEnd(best.root); ae > 0 && strings.Count(best.root[ae:], "/") == 1 {
		inf.alt = &mapping{root: best.root[:ae], keyPrefix: best.keyPrefix}
		if entropyKey != "" {
			inf.m, inf.alt = inf.alt, inf.m
		}
	}
	return inf
}

// settle returns the mapping to use: inf.m, unless the probe reference is
// missing under it and there is an alternative (one attribute call).
func settle(ctx context.Context, b *blob.Bucket, inf *inference) (m *mapping, calls int, err error) {
	if inf == nil {
		return nil, 0, nil
	}
	if inf.alt == nil {
		return inf.m, 0, nil
	}
	k, ok := inf.m.key(inf.probe)
	if !ok {
		return inf.alt, 0, nil
	}
	_, err = b.Attributes(ctx, k)
	switch {
	case err == nil:
		return inf.m, 1, nil
	case gcerrors.Code(err) == gcerrors.NotFound:
		return inf.alt, 1, nil
	default:
		return nil, 1, fmt.Errorf("flinkckpt: attributes of %s: %w", redact.QuoteKey(k), err)
	}
}

// anchor finds the longest ancestor key of dir (or its longest tail) inside
// uri's path, where the reference is shaped like the snapshot's own layout
// (layoutShaped). Other references — a changelog's DSTL files at
// <dstl-base>/<job>/dstl/<uuid>, whose job-id segment matches too — say
// nothing about where the snapshot lives and anchor nothing.
func anchor(dir, uri string) *mapping {
	ae := authorityEnd(uri)
	if ae < 0 {
		return nil
	}
	path := uri[ae-1:] // starts with "/"
	for a := dir; a != ""; a = parentDir(a) {
		for x := a; x != ""; x = tailDir(x) {
			if i := strings.Index(path, "/"+x); i >= 0 && (a == dir || layoutShaped(path[i+1+len(x):])) {
				return &mapping{root: uri[:ae-1+i+1], keyPrefix: a[:len(a)-len(x)]}
			}
		}
	}
	return nil
}

// layoutShaped reports whether rest, the part of a reference's path after
// an ancestor dir of the snapshot, is where Flink's checkpoint layout puts
// files: <job>/chk-<id>/…, <job>/shared/… or <job>/taskowned/… below the
// checkpoint root (the job segment is absent without
// execution.checkpointing.create-subdir), or without the job segment below
// a job dir.
func layoutShaped(rest string) bool {
	if i := strings.IndexByte(rest, '/'); i == 32 && hexJobRE.MatchString(rest[:i]) {
		if ownLayoutDir(rest[i+1:]) {
			return true
		}
	}
	return ownLayoutDir(rest)
}

// ownLayoutDir reports whether rest starts with shared/, taskowned/ or
// chk-<id>/.
func ownLayoutDir(rest string) bool {
	if strings.HasPrefix(rest, "shared/") || strings.HasPrefix(rest, "taskowned/") {
		return true
	}
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return false
	}
	_, ok := chkID(rest[:i+1])
	return ok
}

// parentDir returns the parent of a dir key ("a/b/" → "a/", "a/" → "").
func parentDir(dir string) string {
	d := strings.TrimSuffix(dir, "/")
	i := strings.LastIndexByte(d, '/')
	if i < 0 {
		return ""
	}
	return d[:i+1]
}

// tailDir drops the first segment of a dir key ("a/b/" → "b/").
func tailDir(dir string) string {
	i := strings.IndexByte(dir, '/')
	if i < 0 || i == len(dir)-1 {
		return ""
	}
	return dir[i+1:]
}

// commonSegments returns the longest common prefix of a and b that ends in "/".
func commonSegments(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:strings.LastIndexByte(a[:n], '/')+1]
}

// roots are the mappings an Options gives for a prefix: FlinkRoot's
// (given), or else FallbackFlinkRoot's for snapshots with nothing to infer
// from; the extra roots of other buckets; the default file system.
type roots struct {
	given, fallback *mapping
	givenRoot       string // Options.FlinkRoot as given, for messages
	extras          []extraMapping
	dfs             defaultFS
	entropyKey      string
	bucket          string // Options.BucketName
}

// extraMapping is one Options.ExtraRoots entry.
type extraMapping struct {
	m      *mapping
	bucket *blob.Bucket
	root   string // as given, for messages
}

func (o Options) roots(prefix string) (*roots, error) {
	rs := &roots{entropyKey: o.EntropyKey, givenRoot: strings.TrimSuffix(o.FlinkRoot, "/"), bucket: o.BucketName}
	var err error
	if o.DefaultFS != "" {
		if rs.dfs, err = parseDefaultFS(o.DefaultFS); err != nil {
			return nil, err
		}
	}
	switch {
	case o.FlinkRoot != "":
		rs.given, err = givenMapping(o.FlinkRoot, prefix, o.EntropyKey, rs.dfs)
	case o.FallbackFlinkRoot != "":
		rs.fallback, err = givenMapping(o.FallbackFlinkRoot, prefix, o.EntropyKey, rs.dfs)
		if err != nil {
			err = wrapf(err, "flinkckpt: fallback root")
		}
	}
	if err != nil {
		return nil, err
	}
	for _, x := range o.ExtraRoots {
		root := strings.TrimSuffix(canonicalURI(x.FlinkRoot, rs.dfs), "/") + "/"
		rs.extras = append(rs.extras, extraMapping{m: &mapping{root: root, keyPrefix: keyprefix.Normalize(x.Prefix)}, bucket: x.Bucket, root: x.FlinkRoot})
	}
	return rs, nil
}

// infer is inferMapping under the location's rules. Without a given root,
// an inferred root whose authority holds a character no bucket or host name
// has (ckpt$(id)), or that names another bucket than the one read
// (Options.BucketName), is refused: nil, with why. With a given root the
// inference only serves to find contradictions, and is returned as is.
func (rs *roots) infer(dir string, abs []string) (*inference, string) {
	inf := inferMapping(dir, abs, rs.entropyKey)
	if inf == nil || rs.given != nil {
		return inf, ""
	}
	for _, m := range []*mapping{inf.m, inf.alt} {
		if m == nil {
			continue
		}
		auth := authority(m.root)
		if !validAuthority(auth) {
			return nil, fmt.Sprintf("its references name the root %s, whose authority has characters no bucket or host name has", redact.QuoteKey(m.root))
		}
		if rs.bucket != "" && auth != rs.bucket {
			return nil, fmt.Sprintf("its references name bucket %s (root %s), not %s, the bucket read: the launch would restore from a bucket that was not verified (copied from another bucket? pass the Flink URI of this one)",
				redact.QuoteKey(auth), redact.QuoteKey(m.root), redact.QuoteKey(rs.bucket))
		}
	}
	return inf, ""
}

// authority returns uri's authority ("" when it has none).
func authority(uri string) string {
	i := strings.Index(uri, "://")
	if i < 0 {
		return ""
	}
	rest := uri[i+3:]
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// validAuthority reports an authority made of what bucket and host names
// (and a port, an IPv6 literal) are made of.
func validAuthority(a string) bool {
	for _, r := range a {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		case strings.ContainsRune(".-_:[]", r):
		default:
			return false
		}
	}
	return true
}

// absolute returns md's absolute references, canonical, in file order.
func (rs *roots) absolute(md *metadata.Checkpoint) []string {
	var abs []string
	for _, f := range md.Files {
		if !f.Relative {
			abs = append(abs, canonicalURI(f.Path, rs.dfs))
		}
	}
	return abs
}

// locate maps a canonical absolute reference to a bucket and key: through
// m into the resolver's bucket (extra -1), or through an extra root
// (extra i). It reports false when no root covers it.
func (rs *roots) locate(m *mapping, uri string) (extra int, key string, ok bool) {
	if k, ok := m.key(uri); ok {
		return -1, k, true
	}
	for i, x := range rs.extras {
		if k, ok := x.m.key(uri); ok {
			return i, k, true
		}
	}
	return 0, "", false
}

// contradiction says how the given root and the snapshot's own absolute
// references disagree about where the snapshot at dir lives ("" when they
// agree, or when the references tell nothing). Flink would take the -s
// path from the given root and read the referenced files where the
// references say: a snapshot copied here from elsewhere still reads the
// old place, and a wrong root gives a -s path that does not exist.
func (rs *roots) contradiction(dir string, inf *inference) string {
	if rs.given == nil || inf == nil {
		return ""
	}
	given, ok := rs.given.uri(dir)
	if !ok {
		return ""
	}
	var found []string
	for _, m := range []*mapping{inf.m, inf.alt} {
		if m == nil {
			continue
		}
		u, ok := m.uri(dir)
		if !ok {
			continue
		}
		if u == given {
			return ""
		}
		found = append(found, u)
	}
	if len(found) == 0 {
		return ""
	}
	for _, x := range rs.extras {
		// References under an extra root are where the caller said they
		// are: a copy whose old location is mapped is checked there.
		if _, ok := x.m.key(inf.probeOrRoot()); ok {
			return ""
		}
	}
	if _, ok := rs.given.key(inf.probeOrRoot()); ok && inf.tail {
		// A copy reading (a migrated checkpoint root's or a sibling
		// prefix's files under the same job id) whose files the given root
		// maps: they are checked where they are, and say nothing against
		// the root.
		return ""
	}
	return fmt.Sprintf("the Flink root %s puts it at %s, but its _metadata's absolute references say it lives at %s (root %s): the Flink root is wrong (pass the one Flink wrote it with), or the snapshot was copied here and Flink would read its referenced files at the old place (map that with Options.ExtraRoots, --flink-extra-root)",
		rs.givenRoot, strings.TrimSuffix(given, "/"), strings.TrimSuffix(found[0], "/"), inf.m.root)
}
