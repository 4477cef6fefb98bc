package cmd

import (
	"errors"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"freightsite/generator"
)

func newRelease() *cobra.Command {
	c := &cobra.Command{
		Use:   "release",
		Short: "List the releases `build` wrote, publish one (a staged build, or a rollback)",
	}
	var out string
	list := &cobra.Command{
		Use:   "list",
		Short: "List the releases kept beside --out, oldest first; * marks the published one (exit 1: none there)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			releases, err := generator.Releases(out)
			if errors.Is(err, generator.ErrNoReleases) {
				return exitError{1, err}
			}
			if err != nil {
				return exitError{2, err}
			}
			w := tabwriter.NewWriter(c.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "\tRELEASE\tBUILT")
			for _, r := range releases {
				mark := ""
				if r.Published {
					mark = "*"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\n", mark, r.ID, r.Built.Local().Format("2006-01-02 15:04:05"))
			}
			return w.Flush()
		},
	}
	publish := &cobra.Command{
		Use:   "publish ID",
		Short: "Point --out at release ID (one atomic rename): publish a staged build, or roll back",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := generator.Publish(out, args[0]); err != nil {
				return exitError{2, err}
			}
			abs, _ := filepath.Abs(out)
			fmt.Fprintf(c.OutOrStdout(), "release %s published as %s\n", args[0], abs)
			return nil
		},
	}
	host := "static"
	export := &cobra.Command{
		Use:   "export DIR",
		Short: "Copy the published release's public files into the new folder DIR, for a static host (--for netlify or cloudflare adds the files that host reads)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			r, n, err := generator.Export(out, args[0], host)
			if errors.Is(err, generator.ErrNoReleases) {
				return exitError{1, err}
			}
			if err != nil {
				return exitError{2, err}
			}
			abs, _ := filepath.Abs(args[0])
			fmt.Fprintf(c.OutOrStdout(), "%d files of release %s exported to %s for %s\n", n, r.ID, abs, host)
			return nil
		},
	}
	export.Flags().StringVar(&host, "for", host, "the host: static (the public files alone), netlify (with _headers and _redirects, which Netlify reads) or cloudflare (with _headers)")
	for _, sub := range []*cobra.Command{list, publish, export} {
		sub.Flags().StringVar(&out, "out", "dist", "the path builds publish (a link to the release in use)")
		c.AddCommand(sub)
	}
	return c
}
