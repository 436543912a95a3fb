//go:build !race

package flinkckpt_test

const raceEnabled = false
