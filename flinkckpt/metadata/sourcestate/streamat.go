package sourcestate

// ReadStreamAt returns n bytes of an operator state stream's content at
// offset off (an offset [metadata.OperatorStateInfo].Offsets records): the
// stream's own bytes, or for a Snappy-compressed stream (the proxy header
// says so) the chunks from off on, decoded. It is for list states whose
// elements are no byte arrays (a union list state of strings, for one):
// the caller reads an element's own framing and asks for more as needed.
// Fewer than n bytes left is a [*FormatError] about what; n above maxSize
// (DefaultMaxStreamSize when 0 or less) wraps ErrTooLarge.
func ReadStreamAt(stream []byte, off, n, maxSize int64, what string) ([]byte, error) {
	h, err := parseStreamHeader(stream)
	if err != nil {
		return nil, err
	}
	if maxSize <= 0 {
		maxSize = DefaultMaxStreamSize
	}
	return at(stream, h, off, n, maxSize, what)
}
