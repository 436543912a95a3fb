//go:build !resumectl_nogcs

package cli

import _ "gocloud.dev/blob/gcsblob" // gs://

func init() { linkedSchemes["gs"] = true }
