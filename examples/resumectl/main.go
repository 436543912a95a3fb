// Command resumectl decides where a restarted Flink job should start reading
// and prints what to run: a Flink checkpoint or savepoint to restore, a Paimon
// consumer to continue, or Kafka offsets to start from — the safest of them,
// with the reasons. It also inspects checkpoints, Paimon consumers and
// snapshots, and Kafka offsets, and runs a self-contained demo:
//
//	go run ./examples/resumectl demo
//	resumectl resolve --flink-checkpoints s3://bucket/ck?region=eu-west-1 --paimon-table file:///wh/db.db/t --paimon-consumer job-1
//
// Run "resumectl help" for every command. It needs only the storage and Kafka
// it is pointed at; the demo needs nothing (a temporary directory and an
// in-process Kafka on 127.0.0.1).
package main

import (
	"os"

	"github.com/resumekit/resumekit/examples/resumectl/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
