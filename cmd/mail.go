package cmd

import (
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"freightsite/internal/csvsafe"
	"freightsite/internal/store"
)

func newMail() *cobra.Command {
	var db string
	c := &cobra.Command{
		Use:   "mail",
		Short: "Look at the mail outbox and manage e-mail list opt-outs",
	}
	c.PersistentFlags().StringVar(&db, "db", "freightsite.db", "the database: a SQLite file, or a PostgreSQL URL postgres://USER:PASSWORD@HOST/NAME that several instances may share")

	var state string
	var limit int
	var show int64
	outbox := &cobra.Command{
		Use:   "outbox",
		Short: "List outbox messages, newest first, with their kind and state (pending, sent, held, suppressed, failed); --show ID prints one",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			s, err := openStore(db)
			if err != nil {
				return err
			}
			defer s.Close()
			out := c.OutOrStdout()
			if c.Flags().Changed("show") {
				m, err := s.OutboxMessageByID(c.Context(), show)
				if errors.Is(err, store.ErrNoSuchMessage) {
					return exitError{1, err}
				}
				if err != nil {
					return err
				}
				for _, h := range [][2]string{
					{"ID", fmt.Sprint(m.ID)}, {"Created", m.Created.Format(time.RFC3339)}, {"Kind", string(m.Kind)}, {"State", m.State},
					{"Attempts", fmt.Sprint(m.Attempts)}, {"Last error", m.LastError}, {"To", m.To}, {"Reply-To", m.ReplyTo},
					{"Subject", m.Subject}, {"Attachment", m.Attachment},
				} {
					if h[1] != "" {
						fmt.Fprintf(out, "%s: %s\n", h[0], printable(h[1], false))
					}
				}
				fmt.Fprintf(out, "\n%s\n", printable(m.Body, true))
				return nil
			}
			list, err := s.Outbox(c.Context(), state, limit)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tCREATED\tKIND\tSTATE\tATTEMPTS\tTO\tSUBJECT\tLAST ERROR")
			for _, m := range list {
				fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", m.ID, m.Created.Format("2006-01-02 15:04:05"), m.Kind, m.State, m.Attempts,
					printable(m.To, false), printable(m.Subject, false), printable(m.LastError, false))
			}
			w.Flush()
			fmt.Fprintf(out, "%d messages\n", len(list))
			return nil
		},
	}
	outbox.Flags().StringVar(&state, "state", "", "only messages in this state")
	outbox.Flags().IntVar(&limit, "limit", 100, "at most this many messages")
	outbox.Flags().Int64Var(&show, "show", 0, "print the message with this ID: its headers and text body")

	var format string
	optouts := &cobra.Command{
		Use:   "optouts",
		Short: "List the addresses that left the e-mail list, with the reason each gave (list mail only: account mail and notifications are still sent)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if format != "text" && format != "csv" {
				return exitError{2, fmt.Errorf("--format %q: want text or csv", format)}
			}
			s, err := openStore(db)
			if err != nil {
				return err
			}
			defer s.Close()
			list, err := s.OptOuts(c.Context())
			if err != nil {
				return err
			}
			if format == "csv" {
				w := csvsafe.NewWriter(c.OutOrStdout())
				w.Write([]string{"email", "unsubscribed_at"})
				for _, o := range list {
					w.Write([]string{o.Email, o.Created.UTC().Format(time.RFC3339)})
				}
				w.Flush()
				return w.Error()
			}
			w := tabwriter.NewWriter(c.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "EMAIL\tUNSUBSCRIBED\tREASON")
			for _, o := range list {
				fmt.Fprintf(w, "%s\t%s\t%s\n", printable(o.Email, false), o.Created.Format("2006-01-02 15:04:05"), printable(o.Reason, false))
			}
			w.Flush()
			fmt.Fprintf(c.OutOrStdout(), "%d opt-outs\n", len(list))
			return nil
		},
	}
	optouts.Flags().StringVar(&format, "format", "text", "text (a table) or csv (email,unsubscribed_at, for a list tool)")
	remove := &cobra.Command{
		Use:   "remove EMAIL",
		Short: "Lift an address's opt-out, so list mail reaches it again",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			s, err := openStore(db)
			if err != nil {
				return err
			}
			defer s.Close()
			removed, err := s.RemoveOptOut(c.Context(), args[0])
			if err != nil {
				return err
			}
			if !removed {
				return exitError{1, fmt.Errorf("%s has no opt-out", printable(args[0], false))}
			}
			fmt.Fprintf(c.OutOrStdout(), "removed the opt-out of %s\n", printable(args[0], false))
			return nil
		},
	}
	optouts.AddCommand(remove)
	c.AddCommand(outbox, optouts)
	return c
}
