package salvage_test

import (
	"context"
	"errors"
	"testing"

	"gocloud.dev/blob/memblob"

	"github.com/resumekit/resumekit/flinkckpt"
	"github.com/resumekit/resumekit/flinkckpt/flinkckpttest"
	"github.com/resumekit/resumekit/flinkckpt/salvage"
)

// TestSalvageFromAnotherLocation: the default From chooses among the
// checkpoint root and Flink.Locations as one; a savepoint chosen in the
// savepoint bucket is read there, not looked for under the checkpoint
// root's bucket.
func TestSalvageFromAnotherLocation(t *testing.T) {
	ctx := context.Background()
	ck, sp := memblob.OpenBucket(nil), memblob.OpenBucket(nil)
	defer ck.Close()
	defer sp.Close()
	// An older checkpoint of the job in ck/, and a newer savepoint of it in
	// the other bucket at a higher id: the savepoint is the one chosen.
	ckl := &flinkckpttest.Layout{Bucket: ck, Prefix: "ck/", Root: "s3a://ck/"}
	if _, err := ckl.Checkpoint(ctx, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1", 5, &flinkckpttest.Checkpoint{
		Sources: []flinkckpttest.Source{flinkckpttest.KafkaSource("orders-source", "orders", 100)}}); err != nil {
		t.Fatal(err)
	}
	spl := &flinkckpttest.Layout{Bucket: sp, Prefix: "sp/", Root: "s3a://sp/"}
	name := flinkckpttest.SavepointName("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1", 1)
	if _, err := spl.Savepoint(ctx, name, 9, &flinkckpttest.Checkpoint{
		Sources: []flinkckpttest.Source{flinkckpttest.KafkaSource("orders-source", "orders", 180)}}); err != nil {
		t.Fatal(err)
	}
	r, err := salvage.NewResolver(ck, "ck/", &salvage.Options{Flink: &flinkckpt.Options{
		FlinkRoot: "s3a://ck/",
		Locations: []flinkckpt.Location{{Bucket: sp, Prefix: "sp/", FlinkRoot: "s3a://sp/"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := kafkaStarts(t, c); len(got) != 1 || got[0].Offset != 180 {
		t.Errorf("starts %+v, want the savepoint's offset 180", got)
	}
}

// TestSalvageCanonicalSavepointInAnotherLocationWithoutRoot (issue 22 item
// 5): the savepoint dir is a location of its own with no Flink root, and
// its newest savepoint is canonical (relative references only): salvage
// reads it in that location by key.
func TestSalvageCanonicalSavepointInAnotherLocationWithoutRoot(t *testing.T) {
	ctx := context.Background()
	ck, sp := memblob.OpenBucket(nil), memblob.OpenBucket(nil)
	defer ck.Close()
	defer sp.Close()
	const job = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1"
	ckl := &flinkckpttest.Layout{Bucket: ck, Prefix: "ck/", Root: "s3a://ck/"}
	if _, err := ckl.Checkpoint(ctx, job, 5, &flinkckpttest.Checkpoint{Shared: []string{"a.sst"},
		Sources: []flinkckpttest.Source{flinkckpttest.KafkaSource("orders-source", "orders", 100)}}); err != nil {
		t.Fatal(err)
	}
	spl := &flinkckpttest.Layout{Bucket: sp, Prefix: "sp/", Root: "s3a://sp/"}
	name := flinkckpttest.SavepointName(job, 1)
	if _, err := spl.Savepoint(ctx, name, 9, &flinkckpttest.Checkpoint{Format: "CANONICAL", StateBackend: "canonical",
		Sources: []flinkckpttest.Source{flinkckpttest.KafkaSource("orders-source", "orders", 180)}}); err != nil {
		t.Fatal(err)
	}
	fo := &flinkckpt.Options{Locations: []flinkckpt.Location{{Bucket: sp, Prefix: "sp/"}}}
	fr, err := flinkckpt.NewResolver(ck, "ck/", fo)
	if err != nil {
		t.Fatal(err)
	}
	var np *flinkckpt.NoFlinkPathError
	if _, err := fr.Resolve(ctx); !errors.As(err, &np) || np.Location != 1 || np.Key != "sp/"+name+"/" {
		t.Fatalf("restore path: %v (%+v)", err, np)
	}
	r, err := salvage.NewResolver(ck, "ck/", &salvage.Options{Flink: fo})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Resolve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := kafkaStarts(t, c); len(got) != 1 || got[0].Offset != 180 {
		t.Errorf("starts %+v, want the savepoint's offset 180", got)
	}
}
