package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/metadata/sourcestate"
)

// sourcesDoc is the JSON of "resumectl flink sources": the snapshot (its
// Flink path, or its location when the path is unknown), its checkpoint id
// and one entry per source operator (sourcestate.Summary: operator_id,
// uid, kind, positions, and beside them split_version, notes, error).
type sourcesDoc struct {
	Snapshot     string                `json:"snapshot"`
	CheckpointID int64                 `json:"checkpoint_id"`
	Sources      []sourcestate.Summary `json:"sources"`
	// Sinks are the Sink V2 committers holding pending work, per
	// checkpoint id (a KafkaSink's transactions decoded; any other type
	// "unknown", possibly pending); omitted when none.
	Sinks []flinkckpt.SinkCheck `json:"sinks,omitempty"`
}

// flinkSources implements "resumectl flink sources SNAPSHOT": the position
// of every source the snapshot's state holds.
func flinkSources(ctx context.Context, e *env, raw string, opts *flinkckpt.Options, asJSON bool) error {
	raw = snapshotDir(raw)
	loc, err := openFlink(ctx, e, raw, opts)
	if err != nil {
		return err
	}
	defer loc.Close(ctx)
	s, st, err := flinkckpt.Sources(ctx, loc.Bucket, loc.Prefix, opts)
	if st == nil {
		if err == nil {
			err = errors.New("no _metadata")
		}
		return fmt.Errorf("flink sources %s: %w", loc.Display, err)
	}
	doc := sourcesDoc{Snapshot: orKey(s.Path, loc.Display), CheckpointID: st.CheckpointID, Sources: []sourcestate.Summary{}}
	for i := range st.Sources {
		doc.Sources = append(doc.Sources, st.Sources[i].Summary())
	}
	if s != nil && s.Metadata != nil {
		sinks, serr := flinkckpt.SinkState(ctx, loc.Bucket, s)
		if sinks != nil {
			doc.Sinks = flinkckpt.SinkCommitters(sinks, nil)
		}
		if err == nil && serr != nil && sinks == nil {
			err = serr
		}
	}
	if asJSON {
		if err := writeJSON(e.stdout, doc); err != nil {
			return err
		}
	} else {
		writeSources(e, doc)
	}
	if err != nil {
		return fmt.Errorf("flink sources %s: %w", loc.Display, err)
	}
	return nil
}

func writeSources(e *env, doc sourcesDoc) {
	w := e.stdout
	fmt.Fprintf(w, "%s (checkpoint %d): %d source(s)\n", doc.Snapshot, doc.CheckpointID, len(doc.Sources))
	for _, s := range doc.Sources {
		name := s.OperatorID
		if s.UID != "" {
			name += " (uid " + nameText(s.UID) + ")"
		}
		version := ""
		if s.SplitVersion != nil {
			version = fmt.Sprintf(", split serializer version %d", *s.SplitVersion)
		}
		fmt.Fprintf(w, "  %s: %s%s\n", name, s.Kind, version)
		for _, p := range s.Positions {
			switch p := p.(type) {
			case sourcestate.KafkaPosition:
				if p.Marker != sourcestate.MarkerNone {
					fmt.Fprintf(w, "    %s partition %d: %s (not started)\n", p.Topic, p.Partition, p.Marker)
				} else {
					fmt.Fprintf(w, "    %s partition %d: offset %d\n", p.Topic, p.Partition, p.Offset)
				}
			case sourcestate.PaimonPosition:
				table := ""
				if p.Table != "" {
					table = " of " + p.Table
				}
				fmt.Fprintf(w, "    next snapshot %d%s\n", p.NextSnapshot, table)
			case sourcestate.MySQLPosition:
				fmt.Fprintf(w, "    binlog %s:%d, gtids %q, skip %d events %d rows, ts_sec %d\n", p.File, p.Pos, p.GTIDs, p.SkipEvents, p.SkipRows, p.TsSec)
			case sourcestate.PostgresPosition:
				fmt.Fprintf(w, "    lsn %s", p.LSN)
				if p.TxID != nil {
					fmt.Fprintf(w, ", tx_id %d", *p.TxID)
				}
				if p.TsUsec != nil {
					fmt.Fprintf(w, ", ts_usec %d", *p.TsUsec)
				}
				fmt.Fprintln(w)
			}
		}
		for _, n := range s.Notes {
			fmt.Fprintf(w, "    note: %s\n", oneLine(n))
		}
		if s.Error != "" {
			fmt.Fprintf(w, "    error: %s\n", oneLine(s.Error))
		}
	}
	for _, c := range doc.Sinks {
		name := c.OperatorID
		if c.UID != "" {
			name += " (uid " + nameText(c.UID) + ")"
		}
		kind := c.Type + " sink committer"
		if c.Type == flinkckpt.SinkTypeUnknown {
			kind = "sink committer of unknown type, possibly pending"
		}
		fmt.Fprintf(w, "  %s: %s\n", name, kind)
		if c.Undecodable != "" {
			fmt.Fprintf(w, "    undecodable: %s\n", oneLine(c.Undecodable))
		}
		for _, p := range c.Pending {
			fmt.Fprintf(w, "    checkpoint %d: %d committable(s) pending", p.CheckpointID, p.Committables)
			for i, k := range p.Kafka {
				if i == 0 {
					fmt.Fprint(w, ": transactional ids")
				}
				fmt.Fprintf(w, " %s (producer id %d, epoch %d)", k.TransactionalID, k.ProducerID, k.Epoch)
			}
			fmt.Fprintln(w)
		}
	}
}

// snapshotDir returns the snapshot dir a SNAPSHOT argument names: the
// argument itself, or the dir of a _metadata it names.
func snapshotDir(raw string) string {
	raw = strings.TrimSuffix(strings.TrimSuffix(raw, "/"), "/_metadata")
	if raw == "_metadata" {
		return "."
	}
	return raw
}
