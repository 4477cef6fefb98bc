package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"freightsite/internal/server"
	"freightsite/internal/site"
	"freightsite/internal/store"
)

func newServe() *cobra.Command {
	var dist string
	var f serverFlags
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve the built site and its API on one address",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			// The site asks the database whether a news item exists (an
			// unknown id is a 404); the database opens with the API.
			var news site.NewsLookup
			handler, err := site.Site(dist, func(ctx context.Context, id int64) (bool, error) { return news(ctx, id) })
			if err != nil {
				return exitError{2, err}
			}
			built, err := site.ReadBuilt(dist)
			if err != nil {
				return exitError{2, err}
			}
			f.opts.Site, f.opts.Built, f.opts.Hosts, f.opts.CollectLessGarbage = handler, built, server.SiteHosts, true
			f.opts.Opened = func(s *store.Store) { news = s.NewsExists }
			return f.run(c)
		},
	}
	c.Flags().StringVar(&f.opts.Addr, "addr", "127.0.0.1:8080", "address to listen on (:8080 for every interface; then set --base-url)")
	c.Flags().StringVar(&dist, "dist", "dist", "where freightsite build published the site")
	f.register(c.Flags())
	return c
}
