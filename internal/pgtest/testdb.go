package pgtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The tests of the packages on the database (formapi, internal/store,
// internal/captcha, internal/mail) run against SQLite, and with
// FORMAPI_DB=postgres against PostgreSQL: a throwaway cluster for the
// run, a fresh database for each store a test opens (TestDB).

// Shared is the run's cluster: nil when the tests run on SQLite.
var Shared *Cluster

// RunTests runs a package's tests (its TestMain calls it) on the
// database FORMAPI_DB names, sqlite (the default) or postgres, and exits.
func RunTests(m *testing.M) {
	switch db := os.Getenv("FORMAPI_DB"); db {
	case "", "sqlite":
	case "postgres":
		c, err := Start(Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "starting PostgreSQL for the tests:", err)
			os.Exit(1)
		}
		Shared = c
	default:
		fmt.Fprintf(os.Stderr, "FORMAPI_DB=%q: want sqlite or postgres\n", db)
		os.Exit(2)
	}
	code := m.Run()
	if Shared != nil {
		Shared.Stop()
	}
	os.Exit(code)
}

// TestDB names a new, empty database for a test's store: a file in the
// test's folder, or a fresh PostgreSQL database when the run is against
// PostgreSQL. Opening the same name again reopens the same database.
func TestDB(t testing.TB, file string) string {
	t.Helper()
	if Shared == nil {
		return filepath.Join(t.TempDir(), file)
	}
	url, err := Shared.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return url
}
