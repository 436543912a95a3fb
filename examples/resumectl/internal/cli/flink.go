package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/resumekit/resumekit/flinkckpt"
)

const flinkUsage = `list URL [--json] [--job-id ID] [--flink-root URI] [--no-verify] [--strict] [--timeout DUR]
       resumectl flink inspect PATH|URL [--json] [--flink-root URI] [--strict] [--timeout DUR]
       resumectl flink sources SNAPSHOT [--json] [--flink-root URI] [--timeout DUR]
       resumectl flink ` + flinkCompatUsage

// runFlink implements "resumectl flink list" and "resumectl flink inspect".
func runFlink(e *env, args []string) error {
	if len(args) == 0 {
		return usagef("flink: want a subcommand: list, inspect, compat or sources (usage: resumectl flink %s)", flinkUsage)
	}
	sub := args[0]
	if sub == "compat" {
		return runFlinkCompat(e, args[1:])
	}
	fs := newFlags(e, "flink "+sub, flinkUsage)
	asJSON := fs.Bool("json", false, "print JSON")
	jobID := fs.String("job-id", "", "only this job's checkpoints and savepoints (32 hex)")
	root := fs.String("flink-root", "", "the Flink file-system `URI` of the location or of its bucket root (inferred when absent)")
	noVerify := fs.Bool("no-verify", false, "do not check that referenced files exist")
	strict := fs.Bool("strict", false, "count references that cannot be checked as broken")
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
	switch sub {
	case "list":
		opts := &flinkckpt.Options{JobID: *jobID, FlinkRoot: *root, SkipVerify: *noVerify, Strict: *strict}
		return flinkList(ctx, e, pos[0], opts, *asJSON)
	case "inspect":
		if *jobID != "" || *noVerify {
			return usagef("flink inspect: --job-id and --no-verify apply to flink list only")
		}
		return flinkInspect(ctx, e, pos[0], &flinkckpt.Options{FlinkRoot: *root, Strict: *strict}, *asJSON)
	case "sources":
		if *jobID != "" || *noVerify || *strict {
			return usagef("flink sources: --job-id, --no-verify and --strict apply to flink list and inspect only")
		}
		return flinkSources(ctx, e, pos[0], &flinkckpt.Options{FlinkRoot: *root}, *asJSON)
	default:
		return usagef("flink: unknown subcommand %s: want list, inspect, compat or sources", quoteShort(sub))
	}
}

// openFlink opens a location; for local paths and file:// URLs without a
// Flink root it uses the file:// URI of the directory the bucket is confined
// to (the named dir, or for a chk-<n> dir its job dir), which is how Flink
// names local paths.
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
			State: string(s.State), Reason: s.Reason}
		if !s.ModTime.IsZero() {
			en.ModTime = s.ModTime.UTC().Format(time.RFC3339)
		}
		if s.Metadata != nil {
			en.Version, en.Format = s.Metadata.Version, string(s.Metadata.Format)
		}
		entries = append(entries, en)
	}
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(entries); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "STATE\tKIND\tID\tDIR\tMODIFIED\tREASON")
		for _, en := range entries {
			kind := "checkpoint"
			if en.Savepoint {
				kind = "savepoint"
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
	Format       string            `json:"format"`
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
	raw = strings.TrimSuffix(strings.TrimSuffix(raw, "/"), "/_metadata")
	if raw == "_metadata" {
		raw = "."
	}
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
	doc := inspectJSON{Version: md.Version, CheckpointID: md.CheckpointID, Savepoint: s.Savepoint, Format: string(md.Format),
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
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			return err
		}
	} else {
		kind := "checkpoint"
		if doc.Savepoint {
			kind = "savepoint"
		}
		if doc.Format != "" {
			kind += " (" + doc.Format + ")"
		}
		fmt.Fprintf(e.stdout, "%s\n  %s %d, _metadata version %d, %d operators, %d files, %d missing\n",
			orKey(s.Path, loc.Display), kind, doc.CheckpointID, doc.Version, len(doc.Operators), len(doc.Files), doc.MissingFiles)
		tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  OPERATOR\tNAME\tUID\tPARALLELISM\tMAX\tSUBTASKS\tFINISHED")
		for _, op := range doc.Operators {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%d\t%d\t%v\n", op.ID, op.Name, op.UID, op.Parallelism, op.MaxParallelism, op.Subtasks, op.Finished)
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
