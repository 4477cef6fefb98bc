package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"freightsite/formapi"
	"freightsite/generator"
	"freightsite/internal/store"
)

func newBuild() *cobra.Command {
	opts := generator.Options{}
	format := "text"
	var db string
	c := &cobra.Command{
		Use:   "build",
		Short: "Prerender every page in en, hi and ma into a static folder",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.APIPaths = formapi.Paths
			if format != "text" && format != "json" {
				return exitError{2, fmt.Errorf("--report %q: want text or json", format)}
			}
			if db != "" {
				closeDB, err := readDatabase(c.ErrOrStderr(), db, &opts)
				if err != nil {
					return exitError{2, err}
				}
				defer closeDB()
			}
			report, err := generator.Build(opts)
			if errors.Is(err, generator.ErrNoNodeModules) || errors.Is(err, generator.ErrUnknownSetting) || errors.Is(err, generator.ErrInvalidSetting) {
				return exitError{2, err}
			}
			if err != nil {
				return err
			}
			if format == "json" {
				if err := json.NewEncoder(c.OutOrStdout()).Encode(report); err != nil {
					return err
				}
			} else {
				report.Print(c.OutOrStdout())
			}
			warnPlaceholders(c.ErrOrStderr(), report.Placeholders)
			if over := report.OverBudget(); len(over) > 0 {
				return fmt.Errorf("%d pages over their weight budget:\n  %s", len(over), strings.Join(over, "\n  "))
			}
			return nil
		},
	}
	c.Flags().StringVar(&opts.Out, "out", "dist", "where the site is published: a link to the new release, kept with earlier ones in OUT.releases/")
	c.Flags().BoolVar(&opts.Stage, "stage", false, "write the release without publishing it (publish it with `freightsite release publish ID`)")
	c.Flags().StringVar(&opts.BaseURL, "base-url", "", "absolute URL the site is served at, for canonical links and the sitemap (default: baseURL of data/site.json)")
	c.Flags().StringVar(&opts.Root, "root", ".", "source tree holding pages/, locales/, data/ and node_modules/")
	c.Flags().StringToStringVar(&opts.Settings, "set", nil, "replace text settings of data/site.json for this build, by dotted path (payment.donationURL=https://...,payment.subscriptionURL=https://...)")
	c.Flags().StringVar(&opts.APIOrigin, "api-origin", "", "origin of `freightsite api` (https://api.example.com) that _redirects proxies the API's paths to, for Netlify (default: no such rules)")
	c.Flags().StringVar(&format, "report", format, "how the page weights and timings are printed: text (a table and a summary line) or json (one object, for programs such as make bench)")
	c.Flags().StringVar(&db, "db", "", "the API's database, a SQLite file or a PostgreSQL URL (read only): the home page's key figures count its registered members (shown from keyFigures.minimum.members of data/site.json), and the news pages show its news, a page for each item and the feed in pages of 20; a database no server has created yet (before the API's first start) is left alone and the build says so and uses the seed (default: none: the news seed of data/news.json, no member count)")
	c.Flags().StringVar(&opts.RecaptchaSiteKey, "recaptcha-site-key", "", "reCAPTCHA site key: the forms use reCAPTCHA instead of the self-hosted proof-of-work captcha (serve the API with --recaptcha-secret)")
	c.Flags().StringVar(&opts.ImageCache, "image-cache", "", "folder keeping the images the build draws (link previews, app icons) by what they are drawn from, and the gzip of its assets by their bytes, across builds; off: none (default: freightsite/drawn in the user's cache folder)")
	c.Flags().StringVar(&opts.Renderer, "renderer", "", "what runs the pages' server bundle: node (V8, in worker processes: about four times as fast) or goja (in the process); default: node where it is installed, goja otherwise")
	c.Flags().BoolVar(&opts.NoServiceWorker, "no-service-worker", false, "leave the offline service worker out: pages do not register it and /sw.js unregisters the one an earlier build installed, deleting its caches")
	return c
}

// readDatabase sets the options' member count and news archive from the
// API's database db; done ends the read. A database no server has created
// yet (a first build on a new machine, before the API's first start)
// leaves them to the source tree, saying so: its pages show what the
// database will start with, the news seed of data/news.json and no
// members. The build never creates or migrates a database: that is the
// API's start, with the binary that serves it, as the user it runs as.
func readDatabase(w io.Writer, db string, opts *generator.Options) (done func() error, err error) {
	totals, err := formapi.ReadPublicTotals(db)
	if errors.Is(err, store.ErrNotCreated) {
		fmt.Fprintf(w, "--db %s: no database there yet (freightsite api creates it when it first starts): the pages show the news seed of data/news.json, which it starts with, and no member count\n", store.DisplayName(db))
		return func() error { return nil }, nil
	}
	if err != nil {
		return nil, err
	}
	opts.Figures = map[string]int{"members": totals.Members}
	archive, err := store.OpenNewsArchive(db)
	if err != nil {
		return nil, err
	}
	opts.News = &generator.NewsArchive{Count: archive.Count, Each: func(each func(generator.NewsItem) error) error {
		return archive.Each(func(n store.NewsItem) error { return each(newsItem(n)) })
	}}
	return archive.Close, nil
}

// newsItem is a stored news item as the build takes it.
func newsItem(n store.NewsItem) generator.NewsItem {
	item := generator.NewsItem{ID: n.ID, URL: n.URL, RedirectToSource: n.RedirectToSource, PostedAt: n.PostedAt, Title: n.Title, Content: n.Content, Texts: map[string]generator.NewsText{}}
	for lang, t := range n.Translations {
		item.Texts[lang] = generator.NewsText{Title: t.Title, Content: t.Content}
	}
	return item
}

// warnPlaceholders says loudly which values in the pages only make sense
// on this machine or in an example, and how to set real ones.
func warnPlaceholders(w io.Writer, placeholders []string) {
	if len(placeholders) == 0 {
		return
	}
	fmt.Fprintln(w, "WARNING: the pages carry values meant for this machine or for examples only; publish them nowhere else:")
	for _, p := range placeholders {
		how := "--set " + strings.Fields(p)[0] + "=VALUE"
		if strings.HasPrefix(p, "baseURL ") {
			how = "--base-url https://your.site (canonical links, sitemap, robots.txt)"
		}
		fmt.Fprintf(w, "  %s: set %s\n", p, how)
	}
}
