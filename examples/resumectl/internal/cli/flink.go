package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/resume/redact"
)

const flinkUsage = `list URL [--json] [--job-id ID] [--flink-root URI] [--flink-default-fs URI]
           [--flink-extra-root FLINKURI=BUCKETURL]... [--flink-max-metadata-size BYTES] [--no-verify] [--strict] [--timeout DUR]
       resumectl flink inspect PATH|URL [--json] [--flink-root URI] [--flink-default-fs URI]
           [--flink-extra-root FLINKURI=BUCKETURL]... [--flink-max-metadata-size BYTES] [--strict] [--timeout DUR]
       resumectl flink sources SNAPSHOT [--json] [--flink-root URI] [--flink-default-fs URI] [--flink-max-metadata-size BYTES]
           [--timeout DUR]
       resumectl flink ` + flinkCompatUsage + `
       resumectl flink ` + flinkRecordUsage

// runFlink implements "resumectl flink list" and "resumectl flink inspect".
func runFlink(e *env, args []string) error {
	if len(args) == 0 {
		return usagef("flink: want a subcommand: list, inspect, compat, sources or record (usage: resumectl flink %s)", flinkUsage)
	}
	sub := args[0]
	if isHelp(sub) {
		return groupHelp(e, "flink", flinkUsage)
	}
	if sub == "compat" {
		return runFlinkCompat(e, args[1:])
	}
	if sub == "record" {
		return runFlinkRecord(e, args[1:])
	}
	switch sub {
	case "list", "inspect", "sources":
	default:
		return usagef("flink: no subcommand %s: want list, inspect, compat, sources or record (usage: resumectl flink %s)", redact.Quote(sub), flinkUsage)
	}
	fs := newFlags(e, "flink "+sub, subUsage("flink", flinkUsage, sub))
	asJSON := fs.Bool("json", false, "print JSON")
	// Each subcommand defines only the flags its usage line names.
	jobID, noVerify, strict := new(string), new(bool), new(bool)
	if sub == "list" {
		jobID = fs.String("job-id", "", "only this job's checkpoints and savepoints (32 hex)")
		noVerify = fs.Bool("no-verify", false, "do not check that referenced files exist")
	}
	root := fs.String("flink-root", "", "the Flink file-system `URI` of the location or of its bucket root (inferred when absent)")
	defaultFS := fs.String("flink-default-fs", "", "the file system of paths without an authority (`URI`: Hadoop's fs.defaultFS, e.g. hdfs://ns)")
	var extras extraRootsFlag
	var maxSize sizeFlag
	fs.Var(&maxSize, "flink-max-metadata-size", "the largest _metadata to read (`BYTES`, e.g. 4GiB; default 2GiB)")
	if sub == "list" || sub == "inspect" {
		strict = fs.Bool("strict", false, "count references that cannot be checked as broken")
		fs.Var(&extras, "flink-extra-root", "map another Flink root to a storage location, `FLINKURI=BUCKETURL` (repeatable)")
	}
	timeout := addTimeout(fs, DefaultTimeout)
	pos, err := parseFlags(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("flink %s: want exactly one location, got %d (usage: resumectl flink %s)", sub, len(pos), flinkUsage)
	}
	ctx, cancel := e.context(timeout.d)
	defer cancel()
	var locs []*location
	defer func() {
		for _, l := range locs {
			l.Close(ctx)
		}
	}()
	extraRoots := func() ([]flinkckpt.ExtraRoot, error) { return extras.open(ctx, e, &locs) }
	switch sub {
	case "list":
		x, err := extraRoots()
		if err != nil {
			return err
		}
		opts := &flinkckpt.Options{JobID: *jobID, FlinkRoot: *root, SkipVerify: *noVerify, Strict: *strict,
			DefaultFS: *defaultFS, ExtraRoots: x, MaxMetadataSize: maxSize.n}
		return flinkList(ctx, e, pos[0], opts, *asJSON)
	case "inspect":
		x, err := extraRoots()
		if err != nil {
			return err
		}
		return flinkInspect(ctx, e, pos[0], &flinkckpt.Options{FlinkRoot: *root, Strict: *strict,
			DefaultFS: *defaultFS, ExtraRoots: x, MaxMetadataSize: maxSize.n}, *asJSON)
	case "sources":
		return flinkSources(ctx, e, pos[0], &flinkckpt.Options{FlinkRoot: *root, DefaultFS: *defaultFS, MaxMetadataSize: maxSize.n}, *asJSON)
	default:
		return usagef("flink: unknown subcommand %s: want list, inspect, compat, sources or record", redact.Quote(sub))
	}
}

// openFlink opens a location; for local paths and file:// URLs without a
// Flink root it uses the file:// URI of the directory the bucket is confined
// to (the named dir, or for a chk-<n> dir its job dir). Flink writes local
// paths as Path.toString() does, file:/dir (no "//" without an authority),
// and is given them as file:///dir: flinkckpt reads both spellings as one.
func openFlink(ctx context.Context, e *env, raw string, opts *flinkckpt.Options) (*location, error) {
	loc, err := openLocationAt(ctx, e, raw, true)
	if err != nil {
		return nil, err
	}
	if opts.FlinkRoot == "" && loc.Root != "" {
		opts.FlinkRoot = "file://" + strings.TrimSuffix(filepath.ToSlash(loc.Root), "/")
	}
	if opts.FlinkRoot == "" {
		// For snapshots whose references are all relative (canonical
		// savepoints) nothing else names the root; the candidate says so.
		opts.FallbackFlinkRoot = loc.FlinkFallback
	}
	// The bucket that was read is the bucket that is launched: an inferred
	// root naming another bucket is refused.
	opts.BucketName = loc.BucketName
	if err := validateFlinkOptions(loc, opts); err != nil {
		loc.Close(ctx)
		return nil, err
	}
	return loc, nil
}

func validateFlinkOptions(loc *location, opts *flinkckpt.Options) error {
	if _, err := flinkckpt.NewResolver(loc.Bucket, loc.Prefix, opts); err != nil {
		return usagef("flink: %v", err)
	}
	return nil
}

type flinkListEntry struct {
	Key          string `json:"key"`
	Path         string `json:"path"`
	JobID        string `json:"job_id"`
	CheckpointID int64  `json:"checkpoint_id"`
	Savepoint    bool   `json:"savepoint"`
	State        string `json:"state"`
	Reason       string `json:"reason"`
	ModTime      string `json:"mod_time,omitempty"`
	Version      int    `json:"version,omitempty"`
	Format       string `json:"format"`
	KindUnknown  bool   `json:"kind_unknown,omitempty"`
}

func flinkList(ctx context.Context, e *env, raw string, opts *flinkckpt.Options, asJSON bool) error {
	loc, err := openFlink(ctx, e, raw, opts)
	if err != nil {
		return err
	}
	defer loc.Close(ctx)
	snaps, listErr := flinkckpt.List(ctx, loc.Bucket, loc.Prefix, opts)
	if snaps == nil && listErr != nil {
		return fmt.Errorf("flink list %s: %w", loc.Display, listErr)
	}
	entries := make([]flinkListEntry, 0, len(snaps))
	for _, s := range snaps {
		en := flinkListEntry{Key: s.Key, Path: s.Path, JobID: s.JobID, CheckpointID: s.CheckpointID, Savepoint: s.Savepoint,
			State: string(s.State), Reason: s.Reason, KindUnknown: s.KindUnknown}
		if !s.ModTime.IsZero() {
			en.ModTime = s.ModTime.UTC().Format(time.RFC3339)
		}
		if s.Metadata != nil {
			en.Version, en.Format = s.Metadata.Version, string(s.Metadata.Format)
		}
		entries = append(entries, en)
	}
	if asJSON {
		if err := writeJSON(e.stdout, entries); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "STATE\tKIND\tID\tDIR\tMODIFIED\tREASON")
		for _, en := range entries {
			kind := "checkpoint"
			switch {
			case en.Savepoint:
				kind = "savepoint"
			case en.KindUnknown:
				kind = "snapshot"
			}
			if en.Format != "" {
				kind += " " + strings.ToLower(en.Format)
			}
			dir := en.Path
			if dir == "" {
				dir = en.Key
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", en.State, kind, en.CheckpointID, dir, en.ModTime, oneLine(en.Reason))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if len(entries) == 0 {
			fmt.Fprintf(e.stdout, "no chk-<n> or savepoint dirs under %s\n", loc.Display)
		}
	}
	if listErr != nil {
		return fmt.Errorf("flink list %s: %w", loc.Display, listErr)
	}
	return nil
}

type inspectJSON struct {
	Version      int               `json:"version"`
	CheckpointID int64             `json:"checkpoint_id"`
	Savepoint    bool              `json:"savepoint"`
	KindUnknown  bool              `json:"kind_unknown,omitempty"`
	Format       string            `json:"format"`
	State        string            `json:"state"`
	Operators    []inspectOperator `json:"operators"`
	Files        []inspectFile     `json:"files"`
	MissingFiles int               `json:"missing_files"`
}

type inspectOperator struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	UID            string `json:"uid"`
	Parallelism    int    `json:"parallelism"`
	MaxParallelism int    `json:"max_parallelism"`
	Subtasks       int    `json:"subtasks"`
	Finished       bool   `json:"finished"`
}

type inspectFile struct {
	Path     string `json:"path"`
	Relative bool   `json:"relative"`
	Size     int64  `json:"size"`
	Exists   bool   `json:"exists"`
}

func flinkInspect(ctx context.Context, e *env, raw string, opts *flinkckpt.Options, asJSON bool) error {
	raw = snapshotDir(raw)
	loc, err := openFlink(ctx, e, raw, opts)
	if err != nil {
		return err
	}
	defer loc.Close(ctx)
	s, err := flinkckpt.Inspect(ctx, loc.Bucket, loc.Prefix, opts)
	if s == nil || s.Metadata == nil {
		if err == nil {
			err = errors.New("no _metadata")
		}
		return fmt.Errorf("flink inspect %s: %w", loc.Display, err)
	}
	md := s.Metadata
	doc := inspectJSON{Version: md.Version, CheckpointID: md.CheckpointID, Savepoint: s.Savepoint, KindUnknown: s.KindUnknown,
		Format: string(md.Format), State: string(s.State),
		Operators: []inspectOperator{}, Files: []inspectFile{}}
	for _, op := range md.Operators {
		doc.Operators = append(doc.Operators, inspectOperator{ID: op.ID, Name: op.Name, UID: op.UID, Parallelism: op.Parallelism,
			MaxParallelism: op.MaxParallelism, Subtasks: op.Subtasks, Finished: op.Finished})
	}
	if v := s.Verification; v != nil {
		for _, f := range v.Files {
			doc.Files = append(doc.Files, inspectFile{Path: f.Path, Relative: f.Relative, Size: f.Want, Exists: f.Exists})
		}
		doc.MissingFiles = v.Missing
	}
	if asJSON {
		if err := writeJSON(e.stdout, doc); err != nil {
			return err
		}
	} else {
		kind := "checkpoint"
		switch {
		case doc.Savepoint:
			kind = "savepoint"
		case doc.KindUnknown:
			kind = "snapshot of unknown kind"
		}
		if doc.Format != "" {
			kind += " (" + doc.Format + ")"
		}
		fmt.Fprintf(e.stdout, "%s\n  %s, checkpoint id %d, _metadata version %d, %d operators, %d files, %d missing: %s\n",
			orKey(s.Path, loc.Display), kind, doc.CheckpointID, doc.Version, len(doc.Operators), len(doc.Files), doc.MissingFiles, doc.State)
		tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  OPERATOR\tNAME\tUID\tPARALLELISM\tMAX\tSUBTASKS\tFINISHED")
		for _, op := range doc.Operators {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%d\t%d\t%v\n", op.ID, nameText(op.Name), nameText(op.UID), op.Parallelism, op.MaxParallelism, op.Subtasks, op.Finished)
		}
		tw.Flush()
		if s.Verification != nil {
			for _, f := range s.Verification.Files {
				if f.Problem != "" {
					fmt.Fprintf(e.stdout, "  %s: %s\n", f.Path, f.Problem)
				}
			}
		}
	}
	if err != nil {
		return fmt.Errorf("flink inspect %s: %w", loc.Display, err)
	}
	return nil
}

func orKey(path, display string) string {
	if path != "" {
		return path
	}
	return display
}
