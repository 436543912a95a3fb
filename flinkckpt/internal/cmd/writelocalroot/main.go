// Command writelocalroot writes the large local checkpoint root of the
// shell comparison in BENCHMARKS.md:
//
//	go run ./flinkckpt/internal/cmd/writelocalroot -dir /dev/shm/rk12a-root
//	go run ./flinkckpt/internal/cmd/writelocalroot -dir /dev/shm/rk12a-root1000 -refs 1000
//
// 3,000 checkpoints of one job referencing 100,000 shared files; -refs is
// the number the newest checkpoint references (default its share, 33).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/resumekit/resumekit/flinkckpt/internal/localroot"
)

func main() {
	dir := flag.String("dir", "", "directory to write the root into (created)")
	chks := flag.Int("checkpoints", 3000, "number of chk-<n> dirs")
	shared := flag.Int("shared", 100000, "number of shared files")
	refs := flag.Int("refs", 0, "shared files the newest checkpoint references (0: its share)")
	flag.Parse()
	if *dir == "" || flag.NArg() > 0 || *chks < 1 || *shared < 0 || *refs < 0 || *refs > *shared {
		fmt.Fprintln(os.Stderr, "usage: writelocalroot -dir DIR [-checkpoints N] [-shared N] [-refs N]")
		os.Exit(2)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "writelocalroot:", err)
		os.Exit(1)
	}
	if err := localroot.Write(*dir, *chks, *shared, *refs); err != nil {
		fmt.Fprintln(os.Stderr, "writelocalroot:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %d checkpoints of job %s (%d shared files) under %s\n", *chks, localroot.Job, *shared, *dir)
}
