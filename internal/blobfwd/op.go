package blobfwd

// Op is a kind of bucket call: the one set of names that resume/blobwatch
// and resume/resumetest/blobtest both count and report.
type Op string

// The bucket calls. OpList is one list page (one request on a real store),
// not one entry.
const (
	OpList       Op = "list"
	OpRead       Op = "read"
	OpAttributes Op = "attributes"
	OpWrite      Op = "write"
	OpCopy       Op = "copy"
	OpDelete     Op = "delete"
)
