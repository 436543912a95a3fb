package kafkaoffset

import "github.com/resumekit/resumekit/resume"

var _ resume.GuaranteeBounder = (*Resolver)(nil)

// MaxGuarantee returns [resume.Replay]: committed offsets and a start by
// time are never exact (subtasks commit asynchronously). It implements
// [resume.GuaranteeBounder]: when the resolver fails, a chain under
// resume.BlockWeaker blocks only data-loss candidates, never a checkpoint or
// a Paimon consumer.
func (r *Resolver) MaxGuarantee() resume.Guarantee { return resume.Replay }
