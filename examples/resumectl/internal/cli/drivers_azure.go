//go:build !resumectl_noazure

package cli

import _ "gocloud.dev/blob/azureblob" // azblob://

func init() { linkedSchemes["azblob"] = true }
