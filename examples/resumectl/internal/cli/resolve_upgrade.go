package cli

import (
	"context"
	"fmt"
	"sync"

	"github.com/resumekit/resumekit/resume"
)

// An upgrade (--flink-intent upgrade) restores from a savepoint when there
// is one: Flink guarantees savepoints, not checkpoints, across job and
// version changes. Within one location flinkckpt ranks savepoints first;
// with --flink-checkpoints and --flink-savepoints given apart they are two
// resolvers, and the chain's newest-time rule alone would let a newer
// checkpoint win. preferSavepoints keeps the checkpoint location to
// itself while the savepoint location offers a snapshot.

// onceResolver answers Resolve once and repeats that answer, so that the
// chain and preferSavepoints ask the savepoint location only once.
type onceResolver struct {
	resume.Resolver
	once sync.Once
	cand resume.Candidate
	err  error
}

func (r *onceResolver) Resolve(ctx context.Context) (resume.Candidate, error) {
	r.once.Do(func() { r.cand, r.err = r.Resolver.Resolve(ctx) })
	return r.cand, r.err
}

// MaxGuarantee is the wrapped resolver's.
func (r *onceResolver) MaxGuarantee() resume.Guarantee { return resume.MaxGuarantee(r.Resolver) }

// preferSavepoints offers the checkpoint location's candidate only when
// the savepoint location has none.
type preferSavepoints struct {
	checkpoints resume.Resolver
	savepoints  *onceResolver
}

func (r preferSavepoints) Name() string { return r.checkpoints.Name() }

// MaxGuarantee is the checkpoint resolver's.
func (r preferSavepoints) MaxGuarantee() resume.Guarantee { return resume.MaxGuarantee(r.checkpoints) }

func (r preferSavepoints) Resolve(ctx context.Context) (resume.Candidate, error) {
	c, err := r.savepoints.Resolve(ctx)
	if err == nil && c.Position != nil {
		return resume.Candidate{}, fmt.Errorf("an upgrade (--flink-intent upgrade) restores from a savepoint when there is one, and %s offers %s: checkpoints are not looked at: %w",
			r.savepoints.Name(), c.Position, resume.ErrNoPosition)
	}
	return r.checkpoints.Resolve(ctx)
}
