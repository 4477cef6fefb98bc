// Package pgtest runs a throwaway PostgreSQL cluster for tests and
// benchmarks: initdb and postgres of the installed server (Debian's
// postgresql package) in a temporary folder, listening on a free loopback
// port, removed by Stop. PostgreSQL refuses to run as root, so as root the
// cluster runs as the postgres system user the package creates. The
// server is a child of this process that gets SIGQUIT (immediate
// shutdown) when this process ends, so a test binary that dies without
// calling Stop leaves no server behind. RunTests and TestDB run a
// package's tests on SQLite or, with FORMAPI_DB=postgres, on such a
// cluster.
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
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// Cluster is a running throwaway PostgreSQL server.
type Cluster struct {
	dir, bin string
	port     int
	settings []string            // the server's arguments
	as       *syscall.Credential // the postgres user, when running as root
	server   *exec.Cmd
	exited   chan struct{}
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
		c.as = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	if err := c.start(opts); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// command is one of the PostgreSQL programs, run as the postgres user
// when this process is root.
func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Dir = c.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.as, Pdeathsig: syscall.SIGQUIT}
	return cmd
}

func (c *Cluster) start(opts Options) error {
	data := filepath.Join(c.dir, "data")
	if out, err := c.command("initdb", "-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync").CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	c.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	c.settings = []string{"-D", data, "-p", strconv.Itoa(c.port), "-k", c.dir, "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=400"}
	if !opts.Durable {
		c.settings = append(c.settings, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	if c.admin, err = sql.Open("pgx", c.URL("postgres")); err != nil {
		return err
	}
	return c.run()
}

// run starts the server and waits until it answers.
func (c *Cluster) run() error {
	log, err := os.OpenFile(filepath.Join(c.dir, "log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	c.server = c.command("postgres", c.settings...)
	c.server.Stdout, c.server.Stderr = log, log
	if err := c.server.Start(); err != nil {
		return err
	}
	server, exited := c.server, make(chan struct{})
	c.exited = exited
	go func() {
		server.Wait()
		close(exited)
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		select {
		case <-c.exited:
			out, _ := os.ReadFile(log.Name())
			return fmt.Errorf("postgres stopped at start:\n%s", out)
		default:
		}
		if err = c.admin.Ping(); err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not answer within 30 s: %w", err)
		}
	}
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

// Stop stops the server (fast shutdown: SIGINT) and removes its folder.
func (c *Cluster) Stop() {
	if c.admin != nil {
		c.admin.Close()
	}
	c.shutDown()
	os.RemoveAll(c.dir)
}

// Halt stops the server as an operator would (fast shutdown: the
// sessions are ended, what was committed is kept) and keeps its files,
// so Resume starts it again: a database that goes away and comes back.
func (c *Cluster) Halt() {
	c.admin.Close() // its connections went with the server
	c.shutDown()
}

// Resume starts a halted server again on the same port.
func (c *Cluster) Resume() error {
	var err error
	if c.admin, err = sql.Open("pgx", c.URL("postgres")); err != nil {
		return err
	}
	return c.run()
}

func (c *Cluster) shutDown() {
	if c.server == nil || c.server.Process == nil || c.exited == nil {
		return
	}
	select {
	case <-c.exited:
		return
	default:
	}
	c.server.Process.Signal(syscall.SIGINT)
	select {
	case <-c.exited:
	case <-time.After(30 * time.Second):
		c.server.Process.Kill()
		<-c.exited
	}
}
