package cmd

import (
	"github.com/spf13/cobra"
)

func newAPI() *cobra.Command {
	var addr string
	var api apiFlags
	c := &cobra.Command{
		Use:   "api",
		Short: "Serve only the API (for a site hosted by nginx, a CDN or any static host)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			log, flushLog := newLogger(c.ErrOrStderr())
			defer flushLog()
			rt, err := api.open(c.Context(), log, nil)
			if err != nil {
				return err
			}
			defer rt.stop()
			return listenAndServe(c.Context(), log, addr, api.stopTimeout, rt.handler, c.OutOrStdout())
		},
	}
	c.Flags().StringVar(&addr, "addr", ":8081", "address to listen on")
	api.register(c.Flags())
	return c
}
