package cmd

import (
	"fmt"
	"freightsite/internal/store"

	"github.com/spf13/cobra"
)

func newDB() *cobra.Command {
	var db string
	c := &cobra.Command{
		Use:   "db",
		Short: "Back up the database",
	}
	c.PersistentFlags().StringVar(&db, "db", "freightsite.db", "SQLite database file")
	c.AddCommand(&cobra.Command{
		Use:   "backup FILE",
		Short: "Copy the SQLite database to the new FILE while the API runs (SQLite's online backup: writers are not held up), then check the copy with PRAGMA integrity_check",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if store.IsPostgres(db) {
				return exitError{2, fmt.Errorf("%s names a PostgreSQL database: back it up with pg_dump (docs/operations.md, Running in production, step 7)", flagSource(c.Flags(), "db"))}
			}
			if err := store.Backup(c.Context(), db, args[0]); err != nil {
				return exitError{1, err}
			}
			fmt.Fprintf(c.OutOrStdout(), "backed up %s to %s (integrity check: ok)\n", db, args[0])
			return nil
		},
	})
	return c
}

// openStore opens the database for the data commands (news, tenant, mail).
func openStore(db string) (*store.Store, error) {
	s, err := store.Open(db, store.Options{})
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", store.DisplayName(db), err)
	}
	return s, nil
}
