// Package pgtest runs a throwaway PostgreSQL cluster for tests and
// benchmarks: initdb and pg_ctl of the installed server (Debian's
// postgresql package) in a temporary folder, listening on a free loopback
// port, removed by Stop. PostgreSQL refuses to run as root, so as root the
// cluster runs as the postgres system user the package creates.
package pgtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// Cluster is a running throwaway PostgreSQL server.
type Cluster struct {
	dir, bin string
	port     int
	asUser   []string // runuser prefix when running as root
	admin    *sql.DB
	next     atomic.Int64
}

// Options tune the cluster.
type Options struct {
	// Durable keeps fsync on, for figures; tests turn it off for speed.
	Durable bool
}

// Bin finds the directory of the installed PostgreSQL programs (the
// newest version), or says how to install them.
func Bin() (string, error) {
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(found) == 0 {
		if p, err := exec.LookPath("initdb"); err == nil {
			return filepath.Dir(p), nil
		}
		return "", errors.New("PostgreSQL is not installed (no initdb): apt-get install postgresql")
	}
	slices.SortFunc(found, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(a))))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(b))))
		return va - vb
	})
	return filepath.Dir(found[len(found)-1]), nil
}

// Start creates and starts a cluster.
func Start(opts Options) (*Cluster, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "freightsite-pg-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("PostgreSQL cannot run as root and there is no postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		c.asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	if err := c.start(opts); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) run(name string, args ...string) error {
	argv := append(append(slices.Clone(c.asUser), filepath.Join(c.bin, name)), args...)
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", name, err, out)
	}
	return nil
}

func (c *Cluster) start(opts Options) error {
	data := filepath.Join(c.dir, "data")
	if err := c.run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"); err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	c.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	settings := []string{"-p", strconv.Itoa(c.port), "-k", c.dir, "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=400"}
	if !opts.Durable {
		settings = append(settings, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	if err := c.run("pg_ctl", "-D", data, "-l", filepath.Join(c.dir, "log"), "-w", "-o", strings.Join(settings, " "), "start"); err != nil {
		return err
	}
	c.admin, err = sql.Open("pgx", c.URL("postgres"))
	if err != nil {
		return err
	}
	return c.admin.Ping()
}

// URL is the address of database name in the cluster.
func (c *Cluster) URL(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, name)
}

// NewDatabase creates an empty database and returns its URL.
func (c *Cluster) NewDatabase(ctx context.Context) (string, error) {
	name := fmt.Sprintf("test_%d", c.next.Add(1))
	if _, err := c.admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		return "", err
	}
	return c.URL(name), nil
}

// Stop stops the server and removes its folder.
func (c *Cluster) Stop() {
	if c.admin != nil {
		c.admin.Close()
	}
	if c.port != 0 {
		c.run("pg_ctl", "-D", filepath.Join(c.dir, "data"), "-m", "immediate", "-w", "stop")
	}
	os.RemoveAll(c.dir)
}
