package cmd

import (
	"github.com/spf13/cobra"

	"freightsite/generator"
)

func newAPI() *cobra.Command {
	var addr string
	var api apiFlags
	c := &cobra.Command{
		Use:   "api",
		Short: "Serve only the API (for a site hosted by nginx, a CDN or any static host)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			collectLessGarbage(c.Context())
			return api.run(c, addr, nil, generator.Built{}, nil)
		},
	}
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:8081", "address to listen on (ignored when socket activation hands one over)")
	api.register(c.Flags())
	return c
}
