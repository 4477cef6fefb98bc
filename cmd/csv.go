package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"freightsite/receivables"
)

func newCSV() *cobra.Command {
	c := &cobra.Command{
		Use:   "csv",
		Short: "Check and describe the 25-column receivables import file",
	}
	c.AddCommand(newCSVValidate(), newCSVFix(), newCSVSchema(), newCSVSample())
	return c
}

func newCSVValidate() *cobra.Command {
	var format string
	var maxErrors int
	c := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check receivables import files; exit 0 valid, 1 invalid, 2 unusable input",
		Long: `Checks receivables import files (the 25-column format of ` + "`freightsite csv sample`" + `) row by row.

For each file it prints first the causes that spoil the file as a whole ("fix first:": another
separator, lines above the heading, no heading, columns in other places, empty columns Excel added,
a totals row, text lost to an ANSI save), each once with what to do; then each remaining error as
file:line:column: row R, L: Column Name: what is wrong: what to type instead (value "..."), with
the row and column letter as Excel shows them; then a summary per column and rule when there are
more than 10 problems, and one last line per file.

Exit codes:
  0  every file is valid
  1  some file is invalid: it was read whole, and has causes or errors
  2  some file is unusable: a folder, missing or unreadable, or not CSV text at all (an Excel
     workbook, Excel's "Unicode Text" (UTF-16), a PDF); or the command was used wrongly
With several files the worst wins.`,
		Args: func(c *cobra.Command, files []string) error {
			if len(files) == 0 {
				return exitError{2, fmt.Errorf("name at least one FILE (see %s --help)", c.CommandPath())}
			}
			return nil
		},
		RunE: func(c *cobra.Command, files []string) error {
			if format != "text" && format != "json" {
				return exitError{2, fmt.Errorf("--format %q: want text or json", format)}
			}
			if maxErrors < 0 {
				return exitError{2, fmt.Errorf("--max-errors %d: want 0 or more", maxErrors)}
			}
			reports := make([]*receivables.Report, len(files))
			worst := receivables.StatusValid
			for i, f := range files {
				reports[i] = receivables.ValidateFile(f, receivables.Options{MaxErrors: maxErrors})
				worst = max(worst, reports[i].Status())
			}
			if format == "json" {
				if err := receivables.WriteJSON(c.OutOrStdout(), reports); err != nil {
					return err
				}
			} else {
				receivables.WriteText(c.OutOrStdout(), reports)
			}
			if worst != receivables.StatusValid {
				return exitError{code: int(worst)}
			}
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", "text", "output: text for people, json for machines")
	c.Flags().IntVar(&maxErrors, "max-errors", receivables.DefaultMaxErrors, "errors listed per file; the rest are counted")
	return c
}

func newCSVFix() *cobra.Command {
	var out, format string
	c := &cobra.Command{
		Use:   "fix FILE [--out FIXED]",
		Short: "Write a corrected copy of a receivables import file; exit codes as validate's, for the copy",
		Long: `Writes a copy of FILE with every correction that is certain and loses nothing made, and lists
each change (row, cell, old value, new value, why) beside the copy, in FIXED's name with .changes.csv
(march-fixed.csv: march-fixed.changes.csv). It corrects: another list separator (semicolons, tabs),
Excel's sep= line, title lines above the heading, empty columns after Y, group headings, totals rows
and rows of commas (deleted), Windows-1252 (ANSI) text to UTF-8, bare CR line ends, and values:
thousands separators and decimal commas, ₹, Rs. and INR, credits in brackets or marked Cr, Dr,
Excel's "-" and NIL for zero, state and country names to their codes, spaces and invisible
characters, phone numbers written with +91 and separators.

What it cannot correct for certain it leaves as it is: names lost to question marks, formula errors,
MC numbers that lost a zero, lakh and crore written short, amounts in scientific notation, columns in
another order, values cut at commas not in quotes. The copy is then checked as csv validate checks a
file, and its report says what is left. A file with nothing to correct is copied byte for byte.

Exit codes (of the copy, as csv validate's):
  0  the copy is valid
  1  the copy still has errors to correct by hand, or FILE could not be read to its end (no copy)
  2  FILE is unusable (a folder, missing, not CSV text); or the command was used wrongly`,
		Args: func(c *cobra.Command, files []string) error {
			if len(files) != 1 {
				return exitError{2, fmt.Errorf("name one FILE (see %s --help)", c.CommandPath())}
			}
			return nil
		},
		RunE: func(c *cobra.Command, files []string) error {
			if format != "text" && format != "json" {
				return exitError{2, fmt.Errorf("--format %q: want text or json", format)}
			}
			if out == "" {
				out = strings.TrimSuffix(files[0], filepath.Ext(files[0])) + "-corrected.csv"
			}
			fixed := receivables.FixFile(files[0], out)
			if format == "json" {
				if err := receivables.WriteFixJSON(c.OutOrStdout(), fixed); err != nil {
					return err
				}
			} else {
				receivables.WriteFixText(c.OutOrStdout(), fixed)
			}
			if s := fixed.Status(); s != receivables.StatusValid {
				return exitError{code: int(s)}
			}
			return nil
		},
	}
	c.Flags().StringVar(&out, "out", "", "the corrected copy (default: FILE-corrected.csv beside FILE)")
	c.Flags().StringVar(&format, "format", "text", "output: text for people, json for machines")
	// FREIGHTSITE_OUT is where build publishes the site, not this file.
	_ = c.Flags().SetAnnotation("out", noEnv, []string{"true"})
	return c
}

func newCSVSchema() *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the import format as a Frictionless Table Schema (JSON)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			b, err := receivables.TableSchema()
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(c.OutOrStdout(), "%s\n", b)
			return err
		},
	}
}

func newCSVSample() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "sample",
		Short: "Write a valid example import file",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if out == "" || out == "-" {
				_, err := c.OutOrStdout().Write(receivables.Sample())
				return err
			}
			if err := os.WriteFile(out, receivables.Sample(), 0o644); err != nil {
				return exitError{2, err}
			}
			fmt.Fprintf(c.ErrOrStderr(), "wrote %s\n", out)
			return nil
		},
	}
	c.Flags().StringVar(&out, "out", "", "file to write (default: standard output)")
	// FREIGHTSITE_OUT is where build publishes the site, not this file.
	_ = c.Flags().SetAnnotation("out", noEnv, []string{"true"})
	return c
}
