package cmd

import (
	"github.com/spf13/cobra"
)

func newAPI() *cobra.Command {
	var f serverFlags
	c := &cobra.Command{
		Use:   "api",
		Short: "Serve only the API (for a site hosted by nginx, a CDN or any static host)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			f.opts.CollectLessGarbage = true
			return f.run(c)
		},
	}
	c.Flags().StringVar(&f.opts.Addr, "addr", "127.0.0.1:8081", "address to listen on (ignored when socket activation hands one over)")
	f.register(c.Flags())
	return c
}
