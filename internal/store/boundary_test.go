package store

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestNoSQLOutsideTheStore: no package but this one (and pgtest, which
// runs the tests' PostgreSQL) speaks to a database: no other program
// file imports database/sql or a driver, or calls the hooks tests check
// the database with.
func TestNoSQLOutsideTheStore(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module's root: %v", err)
	}
	drivers := []string{"database/sql", "github.com/mattn/go-sqlite3", "github.com/jackc/pgx"}
	hooks := regexp.MustCompile(`\.Test(QueryRow|Query|Exec)\(`)
	allowed := map[string]bool{filepath.Join("internal", "store"): true, filepath.Join("internal", "pgtest"): true}
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata" || allowed[rel]) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		checked++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, d := range drivers {
				if p == d || strings.HasPrefix(p, d+"/") {
					t.Errorf("%s imports %s: SQL belongs in internal/store, behind a typed method", rel, p)
				}
			}
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if hooks.Match(src) {
			t.Errorf("%s calls a test hook of the store (Test...): only tests may", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Errorf("only %d program files checked", checked)
	}
}
