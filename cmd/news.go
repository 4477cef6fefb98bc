package cmd

import (
	"fmt"
	"freightsite/internal/store"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

func newNews() *cobra.Command {
	var db string
	c := &cobra.Command{
		Use:   "news",
		Short: "Manage the news feed (add, list, import)",
	}
	c.PersistentFlags().StringVar(&db, "db", "freightsite.db", "the database: a SQLite file, or a PostgreSQL URL postgres://USER:PASSWORD@HOST/NAME that several instances may share")

	var item store.NewsItem
	var posted, lang string
	var id int64
	add := &cobra.Command{
		Use:   "add",
		Short: "Add one news item, or (--id, --lang) its title and content in Hindi or Marathi",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if (lang == "") != (id == 0) {
				return exitError{2, fmt.Errorf("--lang and --id go together: --id names the item whose --title and --content in --lang (hi or ma) to add or replace")}
			}
			if posted != "" {
				t, err := time.Parse(time.RFC3339, posted)
				if err != nil {
					return exitError{2, fmt.Errorf("--posted %q: want RFC 3339 such as 2026-11-20T09:30:00+05:30", posted)}
				}
				item.PostedAt = t
			}
			s, err := openStore(db)
			if err != nil {
				return err
			}
			defer s.Close()
			if lang != "" {
				if err := s.TranslateNews(c.Context(), id, lang, item.NewsText()); err != nil {
					return exitError{2, fmt.Errorf("news item %d in %s: %w", id, lang, err)}
				}
				fmt.Fprintf(c.OutOrStdout(), "news item %d: %s title and content saved\n", id, lang)
				return nil
			}
			id, err := s.AddNews(c.Context(), item)
			if err != nil {
				return exitError{2, fmt.Errorf("adding the news item: %w", err)}
			}
			fmt.Fprintf(c.OutOrStdout(), "added news item %d\n", id)
			return nil
		},
	}
	add.Flags().StringVar(&item.Title, "title", "", "title (required, up to 200 characters)")
	add.Flags().StringVar(&item.Content, "content", "", "full text (required; blank lines separate paragraphs)")
	add.Flags().StringVar(&item.URL, "url", "", "source URL (http or https)")
	add.Flags().BoolVar(&item.RedirectToSource, "redirect", false, "the feed links to --url in a new tab instead of the item's own page")
	add.Flags().StringVar(&posted, "posted", "", "when it was posted, RFC 3339 (default: now)")
	add.Flags().Int64Var(&id, "id", 0, "with --lang: the item whose translation --title and --content are")
	add.Flags().StringVar(&lang, "lang", "", "hi or ma: --title and --content are item --id's in that language (added, or replacing the earlier ones)")

	var search, listLang string
	list := &cobra.Command{
		Use:   "list",
		Short: "List news items, newest first",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			s, err := openStore(db)
			if err != nil {
				return err
			}
			defer s.Close()
			items, err := s.ListNews(c.Context(), search, listLang, 1000)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(c.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tPOSTED\tREDIRECT\tLANG\tTITLE")
			for _, n := range items {
				fmt.Fprintf(w, "%d\t%s\t%v\t%s\t%s\n", n.ID, n.PostedAt.Format("2006-01-02 15:04"), n.RedirectToSource, n.Lang, printable(n.Title, false))
			}
			w.Flush()
			fmt.Fprintf(c.OutOrStdout(), "%d items\n", len(items))
			return nil
		},
	}
	list.Flags().StringVar(&search, "search", "", "only items whose title or content contains this text")
	list.Flags().StringVar(&listLang, "lang", "", "show (and search) titles in hi or ma where an item has them")

	importCmd := &cobra.Command{
		Use:   "import FILE.json",
		Short: "Add every item of a JSON array (the format of data/news.json); all or none",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return exitError{2, err}
			}
			defer f.Close()
			s, err := openStore(db)
			if err != nil {
				return err
			}
			defer s.Close()
			n, err := s.ImportNews(c.Context(), f)
			if err != nil {
				return exitError{2, fmt.Errorf("%s: %w", args[0], err)}
			}
			fmt.Fprintf(c.OutOrStdout(), "imported %d news items from %s\n", n, args[0])
			return nil
		},
	}
	c.AddCommand(add, list, importCmd)
	return c
}
