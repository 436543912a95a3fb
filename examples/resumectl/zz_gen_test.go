package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob/fileblob"

	"github.com/resumekit/resumekit/examples/internal/scenario"
	"github.com/resumekit/resumekit/examples/resumectl/internal/cli"
)

func TestZZGen(t *testing.T) {
	work := t.TempDir()
	dir := filepath.Join(work, "data")
	os.MkdirAll(dir, 0o755)
	b, _ := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	env := &scenario.Env{Bucket: b, Root: "file://" + filepath.ToSlash(dir) + "/", Touch: func(key string, tt time.Time) error {
		return os.Chtimes(filepath.Join(dir, filepath.FromSlash(key)), tt, tt)
	}}
	scenario.BuildFlink(env, "")
	var out, errb bytes.Buffer
	cli.Main(strings.Fields(os.Getenv("ZZARGS")+" --flink-checkpoints "+dir+"/checkpoints --flink-savepoints "+dir+"/savepoints"), &out, &errb)
	s := strings.ReplaceAll(out.String(), work, "$WORK")
	s = strings.ReplaceAll(s, strings.TrimPrefix(work, "/"), "$WORKKEY")
	os.WriteFile("/tmp/zzout", []byte(s), 0o644)
}
