package paimon

import "github.com/resumekit/resumekit/resume"

var _ resume.GuaranteeBounder = (*Resolver)(nil)

// MaxGuarantee returns [resume.ExactInput]: at best (a consumer that has
// read every snapshot) a consumer's nextSnapshot resumes the input exactly,
// with operator state starting empty. It implements [resume.GuaranteeBounder]: when the resolver fails, a
// chain under resume.BlockWeaker blocks the candidates below exact-input (a
// Kafka replay) and nothing else.
func (r *Resolver) MaxGuarantee() resume.Guarantee { return resume.ExactInput }
