package paimon

import "github.com/resumekit/resumekit/resume"

var _ resume.InputStarter = Position{}

// InputStarts returns where the start reads the table: the snapshot the
// launch starts at (scan.snapshot-id: ReplayFrom after a rollback, else
// NextSnapshot), as [resume.PaimonInput] of the table's SQL identifier.
// Nothing is claimed gone (GoneBelow -1). With it the chain grades a
// consumer start at or above a snapshot's Paimon source position whose
// sink output was pending there (the source-ahead race: the consumer file
// written at checkpoint N's notification, the sink's commit of N not)
// data-loss ([resume.WarnSinkPending]).
func (p Position) InputStarts() []resume.InputStart {
	if p.TableName == "" || p.scanSnapshotID() <= 0 {
		return nil
	}
	name := p.TableName
	if p.Branch != "" && p.Branch != "main" {
		name += "$branch_" + p.Branch
	}
	return []resume.InputStart{{Input: resume.PaimonInput(name), Offset: p.scanSnapshotID(), GoneBelow: -1}}
}
