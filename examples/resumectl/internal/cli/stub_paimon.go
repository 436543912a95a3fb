package cli

// Placeholder until the paimon command lands: the file implementing it deletes this one.
func runPaimon(e *env, args []string) error { return usagef("paimon: not built yet") }
