//go:build race

package metadata_test

// raceEnabled thins out exhaustive loops under the race detector.
const raceEnabled = true
