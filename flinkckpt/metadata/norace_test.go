//go:build !race

package metadata_test

const raceEnabled = false
