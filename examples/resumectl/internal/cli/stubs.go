package cli

// Placeholders until each command lands; each file that implements a command
// replaces its line here.

func runResolve(e *env, args []string) error { return usagef("resolve: not built yet") }
func runFlink(e *env, args []string) error   { return usagef("flink: not built yet") }
func runPaimon(e *env, args []string) error  { return usagef("paimon: not built yet") }
func runKafka(e *env, args []string) error   { return usagef("kafka: not built yet") }
func runDemo(e *env, args []string) error    { return usagef("demo: not built yet") }
