package cmd

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"freightsite/dev"
	"freightsite/formapi"
	"freightsite/generator"
	"freightsite/internal/server"
	"freightsite/internal/site"
	"freightsite/internal/store"
)

func newDev() *cobra.Command {
	typeCheck := true
	opts := dev.Options{}
	var f serverFlags
	c := &cobra.Command{
		Use:   "dev",
		Short: "Build the site into memory, serve it with the API and rebuild what each save changes; open pages reload",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Out, opts.TypeCheck = c.OutOrStdout(), typeCheck
			opts.Build.APIPaths = formapi.Paths
			srv, err := dev.Start(c.Context(), opts)
			if errors.Is(err, generator.ErrNoNodeModules) {
				return exitError{2, err}
			}
			if err != nil {
				return err
			}
			defer srv.Close()
			// As serve: the site asks the database whether a news item
			// exists; the database opens with the API.
			var news site.NewsLookup
			site := srv.Handler(func(ctx context.Context, id int64) (bool, error) { return news(ctx, id) })
			f.opts.Site, f.opts.Built, f.opts.Hosts = site, srv.Built(), server.LocalHosts
			f.opts.Opened = func(s *store.Store) { news = s.NewsExists }
			return f.run(c)
		},
	}
	c.Flags().StringVar(&f.opts.Addr, "addr", "127.0.0.1:8080", "address to listen on")
	c.Flags().StringVar(&opts.Build.Root, "root", ".", "source tree holding pages/, locales/, data/ and node_modules/")
	c.Flags().BoolVar(&typeCheck, "typecheck", typeCheck, "run tsc --watch beside the loop and show its errors (they never hold a reload back)")
	f.register(c.Flags())
	return c
}
