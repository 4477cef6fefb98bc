package generator

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// nginxHeadersFile holds the headers _headers sets on every page ("/*"),
// as nginx add_header lines for deploy/nginx.conf to include: the CSP
// carries the boot script's hash, which changes with the script, so the
// build writes it rather than the config. It is a dotfile, so neither
// serve nor the nginx config publishes it.
const nginxHeadersFile = ".nginx-headers.conf"

func nginxHeaders(headers []byte) []byte {
	var b bytes.Buffer
	b.WriteString("# Written by freightsite build from _headers: the security headers of every page.\n")
	for _, rule := range parseHeaders(headers) {
		if rule.pattern != "/*" {
			continue
		}
		names := make([]string, 0, len(rule.header))
		for name := range rule.header {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			for _, v := range rule.header[name] {
				fmt.Fprintf(&b, "add_header %s \"%s\" always;\n", name, strings.ReplaceAll(v, `"`, `\"`))
			}
		}
	}
	return b.Bytes()
}
