package flinkckpttest

import "github.com/resumekit/resumekit/flinkckpt/metadata"

type sourceFile struct {
	key  string
	data []byte
}

// addSources appends the source operators to md and returns the state
// files to write under dir: relative handles in savepoints, absolute ones
// (Root + key) in checkpoints, as Flink references them.
func (l *Layout) addSources(md *metadata.Checkpoint, dir string, sources []Source) []sourceFile {
	var out []sourceFile
	for i := range sources {
		var fileHandle func(name string, size int64) *metadata.StreamHandle
		if !md.Savepoint {
			fileHandle = func(name string, size int64) *metadata.StreamHandle {
				return &metadata.StreamHandle{Type: metadata.TypeFile, Path: l.Root + dir + name, Size: size}
			}
		}
		op, files := sources[i].Operator(md.Version, fileHandle)
		md.Operators = append(md.Operators, op)
		for _, f := range files {
			out = append(out, sourceFile{key: dir + f.Name, data: f.Data})
		}
	}
	return out
}
