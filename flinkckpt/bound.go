package flinkckpt

import "github.com/resumekit/resumekit/resume"

var _ resume.GuaranteeBounder = (*Resolver)(nil)

// MaxGuarantee returns [resume.ExactlyOnce]: a checkpoint or savepoint
// restores operator state and input position together. It implements
// [resume.GuaranteeBounder], so that when the resolver fails (the store
// answers 503) a chain under resume.BlockWeaker refuses every stateless start
// rather than deploy one in place of a checkpoint it could not see.
func (r *Resolver) MaxGuarantee() resume.Guarantee { return resume.ExactlyOnce }
