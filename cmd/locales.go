package cmd

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"freightsite/locales"
)

func newLocales() *cobra.Command {
	c := &cobra.Command{
		Use:   "locales",
		Short: "Translators' tools for locales/*.json",
	}
	c.AddCommand(newLocalesReviewed())
	return c
}

func newLocalesReviewed() *cobra.Command {
	var root string
	var langs []string
	var unrecorded bool
	c := &cobra.Command{
		Use:   "reviewed [KEY...]",
		Short: "Record translations as reviewed against today's English (after updating them)",
		Long: "Records, in locales/" + locales.ReviewFile + ", that the translations of each KEY (or of every key\n" +
			"under a namespace such as faq.items) match en.json as it reads now. --new records every key that\n" +
			"has no record yet (keys added with their translations). Records of keys en.json dropped are removed.",
		RunE: func(c *cobra.Command, keys []string) error {
			translations := locales.Translations()
			if len(langs) == 0 {
				langs = translations
			}
			for _, l := range langs {
				if !slices.Contains(translations, l) {
					return exitError{2, fmt.Errorf("--lang %q: want one of %s", l, strings.Join(translations, ", "))}
				}
			}
			if len(keys) == 0 && !unrecorded {
				return exitError{2, fmt.Errorf("name the KEYs you reviewed, or --new (see %s --help)", c.CommandPath())}
			}
			marked, err := locales.MarkReviewed(filepath.Join(root, "locales"), langs, keys, unrecorded)
			if err != nil {
				return exitError{2, err}
			}
			for _, l := range langs {
				switch n := len(marked[l]); {
				case n == 0:
					fmt.Fprintf(c.OutOrStdout(), "%s: nothing new to record\n", l)
				case n <= 10:
					fmt.Fprintf(c.OutOrStdout(), "%s: recorded %s\n", l, strings.Join(marked[l], ", "))
				default:
					fmt.Fprintf(c.OutOrStdout(), "%s: recorded %d keys\n", l, n)
				}
			}
			return nil
		},
	}
	c.Flags().StringVar(&root, "root", ".", "source tree holding locales/")
	c.Flags().StringSliceVar(&langs, "lang", nil, "translation languages to record (default: all of data/site.json but the first)")
	c.Flags().BoolVar(&unrecorded, "new", false, "also record every key that has no record yet")
	return c
}
