// Command freightsite builds, serves and checks the freight network's site.
package main

import (
	"os"

	"freightsite/cmd"
)

func main() {
	os.Exit(cmd.Execute(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}
