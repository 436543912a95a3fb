package sinkstate_test

// realPaimonSeeds are the real Paimon committables of the export (none yet).
func realPaimonSeeds() []paimonSeed { return nil }
