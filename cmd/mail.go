package cmd

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func newMail() *cobra.Command {
	c := &cobra.Command{
		Use:   "mail",
		Short: "Look at the mail outbox",
	}
	var db, state string
	var limit int
	outbox := &cobra.Command{
		Use:   "outbox",
		Short: "List outbox messages, newest first, with their state (pending, sent, logged, suppressed, failed)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			s, err := openStore(db)
			if err != nil {
				return err
			}
			defer s.Close()
			list, err := s.Outbox(c.Context(), state, limit)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(c.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tCREATED\tSTATE\tATTEMPTS\tTO\tSUBJECT\tLAST ERROR")
			for _, m := range list {
				fmt.Fprintf(w, "%d\t%s\t%s\t%d\t%s\t%s\t%s\n", m.ID, m.Created.Format("2006-01-02 15:04:05"), m.State, m.Attempts, m.To, m.Subject, m.LastError)
			}
			w.Flush()
			fmt.Fprintf(c.OutOrStdout(), "%d messages\n", len(list))
			return nil
		},
	}
	outbox.Flags().StringVar(&db, "db", "freightsite.db", "SQLite database file")
	outbox.Flags().StringVar(&state, "state", "", "only messages in this state")
	outbox.Flags().IntVar(&limit, "limit", 100, "at most this many messages")
	c.AddCommand(outbox)
	return c
}
