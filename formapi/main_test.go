package formapi

import (
	"testing"

	"freightsite/internal/pgtest"
)

// The formapi tests run against SQLite, and with FORMAPI_DB=postgres
// against PostgreSQL: a throwaway cluster for the run, a fresh database
// for each store a test opens (testDB).
func TestMain(m *testing.M) { pgtest.RunTests(m) }

// testDB names a new, empty database for a test's store (pgtest.TestDB).
func testDB(t testing.TB, file string) string { return pgtest.TestDB(t, file) }
