package cmd

import (
	"fmt"
	"freightsite/internal/store"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func newTenant() *cobra.Command {
	var db string
	c := &cobra.Command{
		Use:   "tenant",
		Short: "Manage tenants: a logo, theme and default flag per host label (add, list)",
	}
	c.PersistentFlags().StringVar(&db, "db", "freightsite.db", "the database: a SQLite file, or a PostgreSQL URL postgres://USER:PASSWORD@HOST/NAME that several instances may share")

	var t store.Tenant
	var logo string
	add := &cobra.Command{
		Use:   "add LABEL",
		Short: "Add or replace the tenant of a host label (acme for acme.example.com; www for www.example.com and example.com)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			raw, err := os.ReadFile(logo)
			if err != nil {
				return exitError{2, fmt.Errorf("--logo: %w", err)}
			}
			t.Label, t.Logo = args[0], raw
			s, err := openStore(db)
			if err != nil {
				return err
			}
			defer s.Close()
			if err := s.AddTenant(c.Context(), t); err != nil {
				return exitError{2, fmt.Errorf("tenant %s: %w", args[0], err)}
			}
			fmt.Fprintf(c.OutOrStdout(), "tenant %s saved\n", strings.ToLower(args[0]))
			return nil
		},
	}
	add.Flags().StringVar(&t.Name, "name", "", "the tenant's name (required)")
	add.Flags().StringVar(&logo, "logo", "", "logo image file: PNG, GIF, JPEG or WebP, at most 100 KB (required)")
	add.Flags().StringVar(&t.Theme, "theme", "", "colour theme: "+strings.Join(store.Themes[1:], ", ")+" (default: the site's own)")
	add.Flags().BoolVar(&t.Default, "default", false, "flag Y: the tenant keeps the network's default branding")
	_ = add.MarkFlagRequired("name")
	_ = add.MarkFlagRequired("logo")

	list := &cobra.Command{
		Use:   "list",
		Short: "List tenants",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			s, err := openStore(db)
			if err != nil {
				return err
			}
			defer s.Close()
			tenants, err := s.Tenants(c.Context())
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(c.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "LABEL\tNAME\tLOGO\tTHEME\tDEFAULT")
			for _, t := range tenants {
				flag := "N"
				if t.Default {
					flag = "Y"
				}
				fmt.Fprintf(w, "%s\t%s\t%s, %d bytes\t%s\t%s\n", t.Label, printable(t.Name, false), t.LogoType, len(t.Logo), t.Theme, flag)
			}
			w.Flush()
			fmt.Fprintf(c.OutOrStdout(), "%d tenants\n", len(tenants))
			return nil
		},
	}
	c.AddCommand(add, list)
	return c
}
