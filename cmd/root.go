// Package cmd holds the freightsite commands: each parses its flags, calls
// a package and prints; none holds logic of its own.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// exitError carries a specific exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }

// Execute runs the command line and returns the process exit code:
// 0 success, 1 failure (or an invalid file for csv validate), 2 bad usage
// or unusable input.
func Execute(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	root := newRoot(getenv, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "freightsite:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "freightsite:", err)
	return 1
}

func newRoot(getenv func(string) string, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "freightsite",
		Short:         "Build, serve and check the freight network's public web site",
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			return envFallback(c, getenv)
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return exitError{2, fmt.Errorf("%w (see %s --help)", err, c.CommandPath())}
	})
	root.AddCommand(newBuild(), newRelease(), newServe(), newDev(), newAPI(), newCSV(), newNews(), newTenant(), newMail(), newDB(), newLocales())
	return root
}

// Flag annotations: fromEnv names the variable a flag's value came from;
// noEnv marks a flag no variable sets (csv sample's --out is not build's).
const (
	fromEnv = "freightsite-from-env"
	noEnv   = "freightsite-no-env"
)

// envFallback fills every flag not given on the command line from
// FREIGHTSITE_<FLAG> (dashes as underscores), as DESIGN.md describes, and
// remembers where each value came from, so errors name the variable.
func envFallback(c *cobra.Command, getenv func(string) string) error {
	var err error
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Changed || err != nil || f.Annotations[noEnv] != nil {
			return
		}
		name := "FREIGHTSITE_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v := getenv(name); v != "" {
			if e := f.Value.Set(v); e != nil {
				err = exitError{2, fmt.Errorf("%s=%q: %w", name, v, e)}
			}
			if f.Annotations == nil {
				f.Annotations = map[string][]string{}
			}
			f.Annotations[fromEnv] = []string{name}
		}
	})
	return err
}

// flagSource names where a flag's value came from: "--name", or the
// FREIGHTSITE_ variable that set it.
func flagSource(fs *pflag.FlagSet, name string) string {
	if f := fs.Lookup(name); f != nil && len(f.Annotations[fromEnv]) > 0 {
		return f.Annotations[fromEnv][0]
	}
	return "--" + name
}
