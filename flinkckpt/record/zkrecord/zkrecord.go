// Package zkrecord reads Flink's ZooKeeper HA store: per job, the
// checkpoint nodes HA recovery restores the newest of, through the
// go-zookeeper client. It is the leaf that talks to ZooKeeper; the nodes'
// bytes are read by package record ([record.HA.AddZooKeeperCheckpoint]),
// which compares them with storage.
//
//	h, err := zkrecord.Read(ctx, "zk-0:2181,zk-1:2181", &zkrecord.Options{ClusterID: "orders"})
//	err = record.ReadPointers(ctx, &record.Store{Bucket: haBucket, Dir: "s3://b/flink/ha"}, h)
//
// Flink's layout (ZooKeeperUtils, ZooKeeperCheckpointStoreUtil): under
// high-availability.zookeeper.path.root (default /flink) and
// high-availability.cluster-id, jobs/<job-id>/checkpoints/<%019d id> nodes
// hold the serialized state handles; jobs/<job-id>/checkpoint_id_counter
// the counter; jobgraphs/<job-id> (Flink 2.x: execution-plans/<job-id>) the
// job a recovering Dispatcher resubmits.
//
// # Errors
//
// A ZooKeeper that cannot be reached within Options.Timeout, a path that
// does not exist, or a node over record.MaxHandleBytes is an error naming
// the address (credentials are never part of it) and the path. A node
// whose bytes are not a state handle is kept as that entry's Err.
//
// # Cost
//
// One listing of jobs/ (none when Options.JobID is given), then per job one
// listing of its checkpoints and one read per checkpoint node, plus one
// read each of the counter, job graph and execution plan nodes.
package zkrecord

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/resumekit/resumekit/flinkckpt/record"
	"github.com/resumekit/resumekit/resume/redact"
)

// Options say which cluster's store to read.
type Options struct {
	// Root is high-availability.zookeeper.path.root; "" means /flink.
	Root string
	// ClusterID is high-availability.cluster-id (required; a leading "/"
	// is allowed, as Flink's own settings often write it).
	ClusterID string
	// JobID limits the read to one job; "" reads every job of jobs/.
	JobID string
	// Timeout bounds connecting and the session; 0 means 10s.
	Timeout time.Duration
}

// Client is the part of a ZooKeeper connection Read uses; *zk.Conn is one.
type Client interface {
	Children(path string) ([]string, *zk.Stat, error)
	Get(path string) ([]byte, *zk.Stat, error)
}

var jobIDRE = regexp.MustCompile(`^[0-9a-f]{32}$`)

// maxJobs bounds the jobs of one cluster read.
const maxJobs = 10_000

// Read connects to the ensemble at servers (host:port, comma-separated)
// and reads the cluster's HA store: ReadFrom over a new session, closed
// before it returns.
func Read(ctx context.Context, servers string, opts *Options) (*record.HA, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	addrs := strings.Split(servers, ",")
	for _, a := range addrs {
		if a == "" || strings.ContainsAny(a, "/@ ") {
			return nil, fmt.Errorf("zkrecord: --flink-zookeeper %s: want host:port[,host:port]", redact.Quote(servers))
		}
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	dialer := zk.WithDialer(func(network, address string, timeout time.Duration) (netConn, error) {
		return dialContext(ctx, network, address, min(timeout, o.Timeout))
	})
	conn, events, err := zk.Connect(addrs, o.Timeout, dialer, zk.WithLogger(quiet{}), zk.WithMaxConnBufferSize(4*record.MaxHandleBytes))
	if err != nil {
		return nil, fmt.Errorf("zkrecord: %s: %w", redact.Quote(servers), err)
	}
	defer conn.Close()
	wait, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	for connected := false; !connected; {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				connected = true
			}
		case <-wait.Done():
			return nil, fmt.Errorf("zkrecord: %s: no session within %s: %w", redact.Quote(servers), o.Timeout, wait.Err())
		}
	}
	h, err := ReadFrom(ctx, conn, &o)
	if h != nil {
		h.Source = servers + o.base()
	}
	return h, err
}

func (o *Options) check() error {
	id := strings.Trim(o.ClusterID, "/")
	if id == "" || strings.Contains(id, "..") {
		return errors.New("zkrecord: --flink-cluster-id is required (high-availability.cluster-id)")
	}
	if o.JobID != "" && !jobIDRE.MatchString(o.JobID) {
		return fmt.Errorf("zkrecord: job id %s is not 32 hex digits", redact.Quote(o.JobID))
	}
	if o.Root != "" && (!strings.HasPrefix(o.Root, "/") || strings.Contains(o.Root, "..")) {
		return fmt.Errorf("zkrecord: root %s is not an absolute ZooKeeper path", redact.Quote(o.Root))
	}
	return nil
}

// base is the cluster's path: root + cluster id.
func (o *Options) base() string {
	root := o.Root
	if root == "" {
		root = "/flink"
	}
	return path.Join(root, "/"+strings.Trim(o.ClusterID, "/"))
}

// ReadFrom reads the cluster's HA store over an open client.
func ReadFrom(ctx context.Context, c Client, opts *Options) (*record.HA, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	base := o.base()
	h := &record.HA{Source: base}
	jobs := []string{o.JobID}
	if o.JobID == "" {
		names, _, err := c.Children(base + "/jobs")
		if errors.Is(err, zk.ErrNoNode) {
			return h, nil // no job ever ran: an empty store
		}
		if err != nil {
			return nil, fmt.Errorf("zkrecord: list %s/jobs: %w", base, err)
		}
		if len(names) > maxJobs {
			return nil, fmt.Errorf("zkrecord: %s/jobs: %d jobs, over %d", base, len(names), maxJobs)
		}
		jobs = jobs[:0]
		for _, n := range names {
			if jobIDRE.MatchString(n) {
				jobs = append(jobs, n)
			}
		}
	}
	for _, job := range jobs {
		if err := ctx.Err(); err != nil {
			return h, err
		}
		if err := readJob(c, h, base, job); err != nil {
			return h, err
		}
	}
	return h, nil
}

func readJob(c Client, h *record.HA, base, job string) error {
	dir := base + "/jobs/" + job + "/checkpoints"
	names, _, err := c.Children(dir)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("zkrecord: list %s: %w", dir, err)
	}
	for _, n := range names {
		if _, ok := record.ZooKeeperCheckpointID(n); !ok {
			continue // Flink's own lock or temporary nodes
		}
		p := dir + "/" + n
		data, st, err := c.Get(p)
		if errors.Is(err, zk.ErrNoNode) {
			continue // deleted since the listing: Flink subsumed it
		}
		if err != nil {
			return fmt.Errorf("zkrecord: read %s: %w", p, err)
		}
		if st != nil && st.DataLength > record.MaxHandleBytes {
			data = make([]byte, record.MaxHandleBytes+1) // said as too large by the parser
		}
		if err := h.AddZooKeeperCheckpoint(job, p, data); err != nil {
			return err
		}
	}
	if h.Job(job) == nil {
		h.Jobs = append(h.Jobs, record.HAJob{JobID: job})
	}
	j := h.Job(job)
	if data, _, err := c.Get(base + "/jobs/" + job + "/checkpoint_id_counter"); err == nil && len(data) == 4 {
		j.Counter = int64(binary.BigEndian.Uint32(data))
	}
	for _, g := range []string{"/jobgraphs/", "/execution-plans/"} {
		if _, _, err := c.Get(base + g + job); err == nil {
			j.JobGraph = true
		}
	}
	return nil
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}
