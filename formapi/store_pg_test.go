package formapi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"freightsite/internal/pgtest"
)

// The formapi tests run against SQLite, and with FORMAPI_DB=postgres
// against PostgreSQL: a throwaway cluster for the run, a fresh database
// for each store a test opens (testDB).
var testCluster *pgtest.Cluster

func TestMain(m *testing.M) {
	switch db := os.Getenv("FORMAPI_DB"); db {
	case "", "sqlite":
	case "postgres":
		c, err := pgtest.Start(pgtest.Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "starting PostgreSQL for the tests:", err)
			os.Exit(1)
		}
		testCluster = c
	default:
		fmt.Fprintf(os.Stderr, "FORMAPI_DB=%q: want sqlite or postgres\n", db)
		os.Exit(2)
	}
	code := m.Run()
	if testCluster != nil {
		testCluster.Stop()
	}
	os.Exit(code)
}

// testDB names a new, empty database for a test's store: a file in the
// test's folder, or a fresh PostgreSQL database when the run is against
// PostgreSQL. Opening the same name again reopens the same database.
func testDB(t testing.TB, file string) string {
	t.Helper()
	if testCluster == nil {
		return filepath.Join(t.TempDir(), file)
	}
	url, err := testCluster.NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return url
}
