package k8s

import (
	"crypto/sha256"
	"encoding/binary"
	"time"

	"github.com/resumekit/resumekit/resume"
)

// MaxNonce is the largest nonce [Nonce] returns, 2^53-1: a JSON number that
// jq, JavaScript and every float64 reader read exactly, so a script that
// compares or stores the nonce never rounds it into another.
const MaxNonce = 1<<53 - 1

// Nonce returns the savepointRedeployNonce for c: a positive integer of at
// most 53 bits ([MaxNonce]) taken from
// the SHA-256 of the position's kind, its restore path and its time (At, as
// RFC 3339 in UTC; empty when unknown). It is the same for the same position
// on every run and in every process — re-applying the patch of the same
// decision leaves the nonce unchanged, so the operator does not redeploy
// again — and it changes when the checkpoint changes: another path, or the
// same path written again (a job with a fixed job id that reuses chk-<n>
// after a restart has a newer _metadata time). A decision read back from its
// document gives the same nonce. A nil candidate, or one without a
// position, has a nonce too (of empty fields), though [NewPatch] refuses
// both.
func Nonce(c *resume.Candidate) int64 {
	h := sha256.New()
	kind, path, at := "", "", ""
	if c != nil && c.Position != nil {
		kind, path = c.Position.Kind(), c.Position.Launch().RestorePath()
	}
	if c != nil && !c.At.IsZero() {
		at = c.At.UTC().Format(time.RFC3339Nano)
	}
	for _, s := range []string{"resumekit/k8s-nonce/v1", kind, path, at} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	n := int64(binary.BigEndian.Uint64(h.Sum(nil)[:8]) & MaxNonce)
	if n == 0 {
		return 1
	}
	return n
}
