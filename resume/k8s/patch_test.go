package k8s_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/resumekit/resumekit/resume"
	"github.com/resumekit/resumekit/resume/k8s"
	"github.com/resumekit/resumekit/resume/resumetest"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

const chk42 = "s3a://b/ck/4b1c/chk-42"

func checkpoint(path string, at time.Time, extra map[string]string) *resume.Candidate {
	conf := map[string]string{resume.ConfigStateRecoveryPath: path, resume.ConfigSavepointPath: path}
	for k, v := range extra {
		conf[k] = v
	}
	return &resume.Candidate{
		Resolver:  "flink-checkpoints",
		Position:  resumetest.Position{PositionKind: "flink-checkpoint", Summary: "chk-42 of job 4b1c", Start: resume.Launch{Args: []string{"-s", path}, Config: conf}},
		Guarantee: resume.ExactlyOnce, At: at, Reasons: []string{"complete"},
	}
}

func TestNewPatch(t *testing.T) {
	stateless := &resume.Candidate{
		Resolver: "kafka-offsets",
		Position: resumetest.Position{PositionKind: "kafka-offsets", Summary: "orders: partition:0,offset:42",
			Start: resume.Launch{Options: map[string]string{"scan.startup.mode": "specific-offsets"}}},
		Guarantee: resume.Replay, At: t0,
	}
	for _, tc := range []struct {
		name    string
		c       *resume.Candidate
		opts    *k8s.Options
		want    string // the patch's JSON
		wantErr error
	}{
		{
			name: "Checkpoint",
			c:    checkpoint(chk42, t0, nil),
			opts: &k8s.Options{Nonce: 7},
			want: `{"spec":{"job":{"initialSavepointPath":"s3a://b/ck/4b1c/chk-42","savepointRedeployNonce":7}}}`,
		},
		{
			// Every configuration key other than the restore path goes to
			// flinkConfiguration: a restore mode set by the resolver reaches
			// the operator without further work.
			name: "ClaimModeFlowsIntoFlinkConfiguration",
			c: checkpoint(chk42, t0, map[string]string{
				"execution.state-recovery.claim-mode": "NO_CLAIM",
				"execution.savepoint-restore-mode":    "NO_CLAIM",
			}),
			opts: &k8s.Options{Nonce: 7},
			want: `{"spec":{"job":{"initialSavepointPath":"s3a://b/ck/4b1c/chk-42","savepointRedeployNonce":7},"flinkConfiguration":{"execution.savepoint-restore-mode":"NO_CLAIM","execution.state-recovery.claim-mode":"NO_CLAIM"}}}`,
		},
		{
			name: "RestorePathFromConfigOnly",
			c: &resume.Candidate{Resolver: "mine", Guarantee: resume.ExactlyOnce, At: t0,
				Position: resumetest.Position{PositionKind: "flink-savepoint", Summary: "sp", Start: resume.Launch{Config: map[string]string{resume.ConfigSavepointPath: "s3a://b/sp/savepoint-1"}}}},
			opts: &k8s.Options{Nonce: -3},
			want: `{"spec":{"job":{"initialSavepointPath":"s3a://b/sp/savepoint-1","savepointRedeployNonce":-3}}}`,
		},
		{
			name:    "StatelessRefused",
			c:       stateless,
			wantErr: k8s.ErrStateless,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := k8s.NewPatch(tc.c, tc.opts)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || p != nil {
					t.Fatalf("patch %+v err %v, want %v", p, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("patch (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("StatelessSaysWhatToDo", func(t *testing.T) {
		_, err := k8s.NewPatch(stateless, nil)
		if err == nil || !strings.Contains(err.Error(), "kafka-offsets") || !strings.Contains(err.Error(), "'scan.startup.mode'='specific-offsets'") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("NoCandidate", func(t *testing.T) {
		if _, err := k8s.NewPatch(nil, nil); err == nil {
			t.Error("nil candidate accepted")
		}
		if _, err := k8s.NewPatch(&resume.Candidate{}, nil); err == nil {
			t.Error("candidate without a position accepted")
		}
	})
	t.Run("DefaultNonceIsDerived", func(t *testing.T) {
		c := checkpoint(chk42, t0, nil)
		p, err := k8s.NewPatch(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.Spec.Job.SavepointRedeployNonce != k8s.Nonce(c) {
			t.Errorf("nonce %d, want Nonce(c) %d", p.Spec.Job.SavepointRedeployNonce, k8s.Nonce(c))
		}
	})
	t.Run("CandidateNotChanged", func(t *testing.T) {
		c := checkpoint(chk42, t0, map[string]string{"execution.state-recovery.claim-mode": "CLAIM"})
		if _, err := k8s.NewPatch(c, nil); err != nil {
			t.Fatal(err)
		}
		if c.Position.Launch().Config[resume.ConfigStateRecoveryPath] != chk42 {
			t.Error("NewPatch changed the candidate's launch")
		}
	})
}

// TestNonce: the derived nonce is the same on every run (a fixed value for a
// fixed position, so in every process too) and for the position read back
// from the decision document; it changes when the position changes.
func TestNonce(t *testing.T) {
	c := checkpoint(chk42, t0, nil)
	// SHA-256 of the identity, checked independently, its low 53 bits (jq
	// and JavaScript read the number exactly): 5560505763603326933 & (2^53-1).
	const want = int64(3063823428134869)
	if want > k8s.MaxNonce || float64(want) != float64(int64(float64(want))) {
		t.Fatalf("nonce %d does not survive a float64 reader", want)
	}
	if got := k8s.Nonce(c); got != want {
		t.Errorf("Nonce = %d, want %d: the nonce of a fixed position must never change (it would redeploy every job on upgrade)", got, want)
	}
	// Read back from its JSON (a stored decision): a RawPosition, same nonce.
	raw, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back resume.Candidate
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if got := k8s.Nonce(&back); got != want {
		t.Errorf("read back: Nonce = %d, want %d", got, want)
	}
	// Claim mode and other configuration do not change it, nor do reasons.
	other := checkpoint(chk42, t0.In(time.FixedZone("CET", 3600)), map[string]string{"execution.state-recovery.claim-mode": "CLAIM"})
	other.Reasons = []string{"something else"}
	if got := k8s.Nonce(other); got != want {
		t.Errorf("same position: Nonce = %d, want %d", got, want)
	}
	seen := map[int64]string{want: "chk-42"}
	for name, c := range map[string]*resume.Candidate{
		"OtherCheckpoint":     checkpoint("s3a://b/ck/4b1c/chk-43", t0, nil),
		"SamePathRewritten":   checkpoint(chk42, t0.Add(time.Minute), nil),
		"SamePathTimeUnknown": checkpoint(chk42, time.Time{}, nil),
		"OtherKind": {Position: resumetest.Position{PositionKind: "flink-savepoint", Start: resume.Launch{Args: []string{"-s", chk42}}},
			At: t0, Guarantee: resume.ExactlyOnce},
	} {
		n := k8s.Nonce(c)
		if n <= 0 {
			t.Errorf("%s: nonce %d is not positive", name, n)
		}
		if prev, dup := seen[n]; dup {
			t.Errorf("%s: nonce %d equals %s's", name, n, prev)
		}
		seen[n] = name
	}
	// Nothing to hash is no reason to panic (NewPatch refuses it anyway).
	if n := k8s.Nonce(nil); n <= 0 || n != k8s.Nonce(&resume.Candidate{}) {
		t.Errorf("Nonce(nil) = %d, want the positive nonce of an empty candidate", n)
	}
}

// TestNewPatchAllowNonRestoredState: a launch that drops unclaimed state
// (flinkckpt with Options.AllowNonRestoredState) sets
// spec.job.allowNonRestoredState instead of the configuration keys.
func TestNewPatchAllowNonRestoredState(t *testing.T) {
	c := checkpoint(chk42, t0, map[string]string{resume.ConfigIgnoreUnclaimedState: "true", resume.ConfigSavepointIgnoreUnclaimedState: "true",
		"execution.state-recovery.claim-mode": "NO_CLAIM"})
	p, err := k8s.NewPatch(c, &k8s.Options{Nonce: 7})
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"spec":{"job":{"initialSavepointPath":"` + chk42 + `","savepointRedeployNonce":7,"allowNonRestoredState":true},"flinkConfiguration":{"execution.state-recovery.claim-mode":"NO_CLAIM"}}}`
	if string(body) != want {
		t.Errorf("patch\n got %s\nwant %s", body, want)
	}
	plain, _ := json.Marshal(must(k8s.NewPatch(checkpoint(chk42, t0, nil), &k8s.Options{Nonce: 7})))
	if strings.Contains(string(plain), "allowNonRestoredState") {
		t.Errorf("patch without it: %s", plain)
	}
}

func must(p *k8s.Patch, err error) *k8s.Patch {
	if err != nil {
		panic(err)
	}
	return p
}

// TestNonceFitsFloat64: every nonce is at most 2^53-1, so a JSON reader that
// reads numbers as float64 (jq, JavaScript) reads it exactly.
func TestNonceFitsFloat64(t *testing.T) {
	for i := range 2000 {
		c := checkpoint(fmt.Sprintf("s3a://b/ck/4b1c/chk-%d", i), t0.Add(time.Duration(i)*time.Second), nil)
		n := k8s.Nonce(c)
		if n <= 0 || n > k8s.MaxNonce || int64(float64(n)) != n {
			t.Fatalf("Nonce = %d: not in 1..2^53-1", n)
		}
	}
}

// TestPatchWarningAnnotations: the chosen candidate's warnings travel with
// the patch, as annotations, codes first.
func TestPatchWarningAnnotations(t *testing.T) {
	c := checkpoint(chk42, t0, nil)
	c.Warnings = []resume.Warning{{Code: "flink.older-than-broken", Text: "older snapshot chosen"}, {Code: "chain.source-failed", Text: "kafka failed"}}
	p, err := k8s.NewPatch(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(p)
	want := `{"metadata":{"annotations":{"resumekit.io/warning-codes":"flink.older-than-broken,chain.source-failed","resumekit.io/warnings":"[flink.older-than-broken] older snapshot chosen\n[chain.source-failed] kafka failed"}},"spec":`
	if !strings.HasPrefix(string(body), want) {
		t.Errorf("patch = %s\nwant prefix %s", body, want)
	}
	c.Warnings = nil
	p, _ = k8s.NewPatch(c, nil)
	if body, _ := json.Marshal(p); strings.Contains(string(body), "metadata") {
		t.Errorf("a candidate without warnings: %s", body)
	}
}

// TestPatchRecordAnnotation: the decision's record section shows on the
// resource beside the restore path storage chose, one line per record.
func TestPatchRecordAnnotation(t *testing.T) {
	c := checkpoint(chk42, t0, nil)
	rec := &resume.Record{Sources: []resume.RecordSource{
		{Kind: resume.RecordFlinkHA, Source: "ha.json", Says: "HA recovery restores checkpoint 43", Storage: "broken: 1 of 17 referenced files missing"},
		{Kind: resume.RecordFlinkREST, Source: "http://jm:8081", Err: errors.New("connection refused")},
	}}
	p, err := k8s.NewPatch(c, &k8s.Options{Record: rec})
	if err != nil {
		t.Fatal(err)
	}
	want := "flink-ha ha.json: HA recovery restores checkpoint 43; storage: broken: 1 of 17 referenced files missing\nflink-rest http://jm:8081: unreadable: connection refused"
	if got := p.Metadata.Annotations[k8s.AnnotationRecord]; got != want {
		t.Errorf("record annotation %q, want %q", got, want)
	}
	if p, _ := k8s.NewPatch(c, &k8s.Options{}); p.Metadata != nil {
		t.Errorf("no record, annotations %v", p.Metadata)
	}
}

// Issue 31: a decision with thousands of warnings made a 483 KB warnings
// annotation, and Kubernetes refuses a resource whose annotations pass
// 256 KiB. Each annotation is capped at MaxAnnotation with "… and N more";
// one huge warning is cut with "… (N more bytes)".
func TestPatchAnnotationsCapped(t *testing.T) {
	c := checkpoint(chk42, t0, nil)
	for i := range 5000 {
		c.Warnings = append(c.Warnings, resume.Warning{Code: "salvage.data-loss", Text: fmt.Sprintf("data loss: topic-%05d/0: 100 records (offsets 0..99) deleted before the job read them", i)})
	}
	p, err := k8s.NewPatch(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(p)
	total := 0
	for k, v := range p.Metadata.Annotations {
		total += len(k) + len(v)
		if len(v) > k8s.MaxAnnotation {
			t.Errorf("%s: %d bytes, over %d", k, len(v), k8s.MaxAnnotation)
		}
	}
	if total > 128<<10 || !strings.Contains(p.Metadata.Annotations[k8s.AnnotationWarnings], " more") ||
		!strings.Contains(p.Metadata.Annotations[k8s.AnnotationWarnings], "[salvage.data-loss] data loss: topic-00000/0") {
		t.Errorf("annotations %d bytes (patch %d)", total, len(body))
	}
	c.Warnings = []resume.Warning{{Code: "x.big", Text: strings.Repeat("é", 100_000)}}
	p, _ = k8s.NewPatch(c, nil)
	if v := p.Metadata.Annotations[k8s.AnnotationWarnings]; len(v) > k8s.MaxAnnotation || !strings.Contains(v, "more bytes)") || !utf8.ValidString(v) {
		t.Errorf("one huge warning: %d bytes, valid UTF-8 %v", len(v), utf8.ValidString(v))
	}
}
