package cli

import (
	"context"
	"flag"

	"github.com/resumekit/resumekit/paimon"
)

// paimonFlags are resolve's Paimon group: the table and the job's
// consumer, resolved by a paimon.Resolver; the table alone (with a Flink
// location) checks the snapshots' Paimon source positions.
type paimonFlags struct {
	table, consumer, mode string
	writtenMode, version  string
	options               keyValueFlag
	from                  timeFlag
}

func (p *paimonFlags) register(fs *flag.FlagSet, _ *env) {
	fs.StringVar(&p.table, "paimon-table", "", "Paimon table (`URL`), e.g. file:///wh/db.db/orders")
	fs.StringVar(&p.consumer, "paimon-consumer", "", "the job's consumer-id")
	fs.StringVar(&p.mode, "paimon-mode", "", "consumer.mode of the new job: exactly-once or at-least-once (default: the table's)")
	fs.Var(&p.from, "paimon-from", "start `TIME` when the consumer has no file (RFC 3339, unix ms, or -15m)")
	fs.StringVar(&p.writtenMode, "paimon-written-mode", "", "consumer.mode the old job ran with (`MODE`: exactly-once or at-least-once); decides exact-input vs replay (default: the table's, else exactly-once, assumed with a warning)")
	fs.StringVar(&p.version, "paimon-version", "", "Paimon release the new job reads with (`V`, e.g. 0.8 or 1.4.1; default: the newest behaviour)")
	fs.Var(&p.options, "paimon-option", "override a table option, `KEY=VALUE` (repeatable), e.g. changelog.time-retained=7d")
}

// names reports whether the command names a Paimon source.
func (p *paimonFlags) names() bool { return p.table != "" || p.consumer != "" }

// set reports whether any of the group's options beyond the table and the
// consumer was given.
func (p *paimonFlags) set() bool {
	return p.mode != "" || p.from.set || p.writtenMode != "" || p.version != "" || len(p.options.m) > 0
}

func (p *paimonFlags) check(s sources) error {
	switch {
	case s.paimon && (p.table == "" || p.consumer == "") && !(s.flink && p.table != ""):
		return usagef("resolve: --paimon-table and --paimon-consumer go together")
	case !s.paimon && p.set():
		return usagef("resolve: --paimon-mode, --paimon-from, --paimon-written-mode, --paimon-version and --paimon-option need --paimon-table")
	}
	return nil
}

// build opens the table (the live checkers' Paimon table) and, with a
// consumer, its resolver.
func (p *paimonFlags) build(ctx context.Context, e *env, b *built) error {
	if p.table == "" {
		return nil
	}
	loc, err := openLocation(ctx, e, p.table)
	if err != nil {
		return err
	}
	b.closers = append(b.closers, func() { loc.Close(ctx) })
	table, err := paimon.NewTable(loc.Bucket, loc.Prefix, &paimon.TableOptions{Location: loc.Display, Wait: e.tableWait()})
	if err != nil {
		return usagef("resolve: --paimon-table: %v", err)
	}
	b.paimon = table
	if p.consumer == "" {
		return nil
	}
	r, err := paimon.NewResolver(table, p.consumer, &paimon.Options{
		StartTime: p.from.t, Mode: p.mode, WrittenMode: p.writtenMode,
		PaimonVersion: p.version, TableOptions: p.options.m, Now: b.now,
	})
	if err != nil {
		return usagef("resolve: %v", err)
	}
	b.stateless = append(b.stateless, r)
	return nil
}
