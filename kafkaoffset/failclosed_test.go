package kafkaoffset_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/resumekit/resumekit/kafkaoffset"
	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/resumetest"
)

// TestChainWithKafkaDown: a real kafkaoffset resolver on kfake whose end
// offsets cannot be listed fails; it declares replay as its bound, so under
// the default BlockWeaker it blocks a data-loss start but not a Paimon
// consumer's exact input.
func TestChainWithKafkaDown(t *testing.T) {
	e := newEnv(t, 1, 2, []string{"t"})
	e.produceN(t, "t", 0, 3)
	e.produceN(t, "t", 1, 3)
	e.commit(t, "job", "t", map[int32]int64{0: 1, 1: 2})
	h := e.c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "t", Partitions: []int32{1}, Err: kerr.LeaderNotAvailable, Count: -1})
	defer h.Remove()
	kafka := mustResolver(t, e, []string{"t"}, &kafkaoffset.Options{Group: "job", Retries: 1})
	if got := resume.MaxGuarantee(kafka); got != resume.Replay {
		t.Fatalf("MaxGuarantee = %s, want replay", got)
	}
	paimonAt := func(g resume.Guarantee) resume.Resolver {
		return resume.WithMaxGuarantee(resumetest.Static("paimon-consumer", resume.Candidate{
			Position: resumetest.Position{PositionKind: "paimon-snapshot", Summary: "snapshot 121 of db.t"}, Guarantee: g,
			At: base, Reasons: []string{"consumer file"},
		}), resume.ExactInput)
	}
	for _, tc := range []struct {
		name      string
		paimon    resume.Guarantee
		policy    resume.Policy
		wantChose bool
		wantWhy   string
	}{
		{"PaimonExactInputStillChosen", resume.ExactInput, resume.Policy{}, true, ""},
		{"DataLossBlocked", resume.DataLoss, resume.Policy{MinGuarantee: resume.DataLoss}, false, "blocked: kafka-offsets failed and could have offered replay"},
		{"DataLossChosenAnyway", resume.DataLoss, resume.Policy{MinGuarantee: resume.DataLoss, OnFailure: resume.ChooseAnyway}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := (&resume.Chain{Resolvers: []resume.Resolver{paimonAt(tc.paimon), kafka}, Policy: tc.policy}).Resolve(context.Background())
			if !errors.Is(err, kerr.LeaderNotAvailable) || errors.Is(err, resume.ErrNoPosition) {
				t.Errorf("err = %v, want the Kafka failure and not ErrNoPosition", err)
			}
			if f := d.Failed(); len(f) != 1 || f[0].Resolver != "kafka-offsets" {
				t.Errorf("failed = %+v", f)
			}
			if got := d.Chosen != nil && d.Chosen.Resolver == "paimon-consumer"; got != tc.wantChose {
				t.Errorf("chosen %+v, want paimon chosen: %v", d.Chosen, tc.wantChose)
			}
			if tc.wantWhy != "" && d.Considered[0].Why != tc.wantWhy {
				t.Errorf("why = %q, want %q", d.Considered[0].Why, tc.wantWhy)
			}
			want := resume.ResultFailed
			if tc.wantChose {
				want = resume.ResultChosen // beside the failure, which could not have offered more
				if !d.Chosen.HasWarning(resume.WarnSourceFailed) {
					t.Errorf("warnings %v, want %s", d.Chosen.Warnings, resume.WarnSourceFailed)
				}
			}
			if r := resume.Classify(d, err); r != want {
				t.Errorf("Classify = %s, want %s", r, want)
			}
		})
	}
}

// TestPositionPartitionFrom: each partition of a resolved position says how
// its start was found, in its JSON ("from") too.
func TestPositionPartitionFrom(t *testing.T) {
	e := newEnv(t, 1, 3, []string{"t"})
	e.produce(t, "t", 0, ms(0), ms(time.Second), ms(2*time.Second))
	e.produce(t, "t", 1, ms(0), ms(10*time.Second))
	e.produce(t, "t", 2, ms(0))
	e.commit(t, "job", "t", map[int32]int64{0: 2})
	for _, tc := range []struct {
		name string
		opts kafkaoffset.Options
		want []kafkaoffset.OffsetSource
	}{
		{"CommitTimeEnd", kafkaoffset.Options{Group: "job", At: base.Add(5 * time.Second)}, []kafkaoffset.OffsetSource{kafkaoffset.FromCommit, kafkaoffset.FromTime, kafkaoffset.FromEnd}},
		{"CommitLogStart", kafkaoffset.Options{Group: "job"}, []kafkaoffset.OffsetSource{kafkaoffset.FromCommit, kafkaoffset.FromLogStart, kafkaoffset.FromLogStart}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Now = func() time.Time { return base.Add(time.Hour) }
			c, err := mustResolver(t, e, []string{"t"}, &tc.opts).Resolve(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			p, err := kafkaoffset.PositionOf(c.Position)
			if err != nil {
				t.Fatal(err)
			}
			var got []kafkaoffset.OffsetSource
			for _, pp := range p.Partitions {
				got = append(got, pp.From)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("from (-want +got):\n%s", diff)
			}
			// The JSON carries it, and reads back.
			raw, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			var back resume.Candidate
			if err := json.Unmarshal(raw, &back); err != nil {
				t.Fatal(err)
			}
			bp, err := kafkaoffset.PositionOf(back.Position)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(p, bp); diff != "" {
				t.Errorf("read back (-want +got):\n%s", diff)
			}
		})
	}
}
