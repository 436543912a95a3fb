package cli

// Placeholder until the resolve command lands: the file implementing it deletes this one.
func runResolve(e *env, args []string) error { return usagef("resolve: not built yet") }
