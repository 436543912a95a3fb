package kafkaoffset

// SetCommitLogFetches lowers the most Fetch requests a resolver spends on
// the group's commit records, so that tests reach the bound with few
// records.
func SetCommitLogFetches(r *Resolver, n int) { r.logFetches = n }
