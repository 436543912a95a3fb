//go:build race

package flinkckpt_test

// raceEnabled thins out exhaustive loops under the race detector.
const raceEnabled = true
