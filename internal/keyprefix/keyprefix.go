// Package keyprefix normalizes bucket key prefixes, once for flinkckpt,
// paimon and resumectl: "" for the bucket's root, else "dir/" with no
// leading slash.
package keyprefix

import "strings"

// Normalize turns a prefix or path into "" or "dir/": slashes at either end
// are dropped, "" and "." are the root.
func Normalize(p string) string {
	p = strings.Trim(p, "/")
	if p == "" || p == "." {
		return ""
	}
	return p + "/"
}
