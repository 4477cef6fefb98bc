// Package store is freightsite's database: every SQL statement of the
// program, on a SQLite file or on a PostgreSQL database that several
// instances of the server share, behind typed methods. It opens the
// database and brings it to the newest schema (one ordered list of
// migrations for both engines, migrations/), commits writes in groups
// (Store.Write, Tx), tells an unavailable database from an unknown commit
// outcome (ErrUnavailable, ErrOutcomeUnknown) and logs an outage once, and
// copies a live SQLite file (Backup).
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"
)

// Store is the database: a SQLite file, or a PostgreSQL database that
// several instances of the server may share (postgres.go). Reads go to a
// pool of connections; every write goes through one writer goroutine
// that drains the queued writes into a single transaction (group commit),
// commits it durably (on SQLite with synchronous FULL) and only then
// answers each caller. So one fsync serves many requests, and a caller
// told "done" knows its rows survive a crash.
type Store struct {
	db   string // the file or URL given to Open
	pg   bool
	log  *slog.Logger
	read *sql.DB
	// newsVersion reads news_version, which every GET /api/news asks
	// (formapi's news cache): prepared once, it costs a fraction of a
	// query.
	newsVersion *sql.Stmt
	queue       chan *writeJob
	closed      chan struct{}
	wg          sync.WaitGroup
	once        sync.Once

	// written is signalled after each commit that changed something, so
	// the mail sender wakes up for new outbox rows without polling hard.
	written chan struct{}
	// commits counts those commits (the news cache rereads news_version
	// after any of them).
	commits atomic.Int64
	// batches, when set (ObserveBatches), sees each committed batch's size.
	batches atomic.Pointer[func(int)]
	// outage logs the writer's failures as one event (outage.go).
	outage *outage
	// faults counts the database's errors by kind (ErrorKinds).
	faults [len(ErrorKinds)]atomic.Int64
}

// Options tune a store; the zero value is the server's.
type Options struct {
	// Log receives the outage lines and the writer's errors (none when nil).
	Log *slog.Logger
	// Now is the outage log's clock (time.Now when nil).
	Now func() time.Time
}

// ErrUnavailable means the database cannot take writes now (read-only
// file, full disk, I/O error, locked too long); the API answers 503 and
// the writer reopens the file for the next attempt.
var ErrUnavailable = errors.New("the database cannot store data right now")

// ErrOutcomeUnknown means a commit was sent and its answer never came
// (the connection to PostgreSQL broke during COMMIT, or the disk failed
// while SQLite wrote it): the writes may be stored or not. The API answers
// 503 saying so; a retry with the same Idempotency-Key gets the first
// answer if they were stored, and stores them once if not.
var ErrOutcomeUnknown = errors.New("the connection to the database broke while it committed; the data may have been stored")

// MaxBatch bounds one group-commit transaction.
const MaxBatch = 512

type writeJob struct {
	fn   func(*sql.Tx) error
	done chan error
}

// Open opens db, a PostgreSQL URL (postgres://...) or the path of a SQLite
// file (created if needed), applies the migrations it has not had, loads
// the news seed into a database that never had news, and starts the
// writer.
func Open(db string, opts Options) (*Store, error) {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	name := DisplayName(db)
	pg := IsPostgres(db)
	if !pg {
		if err := createPrivate(db, log); err != nil {
			return nil, err
		}
	}
	w, err := openWriter(db)
	if err != nil {
		return nil, err
	}
	if err := migrate(w, pg); err != nil {
		w.Close()
		return nil, fmt.Errorf("migrating %s: %w", name, err)
	}
	var read *sql.DB
	if pg {
		read, err = openPostgres(db, true)
	} else {
		read, err = sql.Open("sqlite3", dsn(db, "_busy_timeout=5000&_foreign_keys=1&_query_only=1"))
	}
	if err != nil {
		w.Close()
		return nil, err
	}
	read.SetMaxOpenConns(max(4, 2*runtime.GOMAXPROCS(0)))
	read.SetMaxIdleConns(max(4, 2*runtime.GOMAXPROCS(0)))
	newsVersion, err := read.Prepare(`SELECT version FROM news_version`)
	if err != nil {
		w.Close()
		read.Close()
		return nil, fmt.Errorf("opening %s: %w", name, err)
	}
	s := &Store{
		db:          db,
		pg:          pg,
		log:         log,
		read:        read,
		newsVersion: newsVersion,
		queue:       make(chan *writeJob, 4*MaxBatch),
		closed:      make(chan struct{}),
		written:     make(chan struct{}, 1),
		outage:      newOutage(log, opts.Now),
	}
	s.wg.Add(1)
	go s.writeLoop(w)
	return s, nil
}

// createPrivate creates the database file readable by its owner only: it
// holds the server secret, password hashes and visitors' contact details.
// SQLite gives its -wal and -shm files the same mode. An existing file
// others may read is left as it is, with a warning.
func createPrivate(path string, log *slog.Logger) error {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	if info, err := os.Stat(path); err == nil && info.Mode().Perm()&0o077 != 0 {
		log.Warn("the database file can be read by other users of this machine; it holds secrets and visitors' details (chmod 600 it, and its -wal and -shm files)", "db", path, "mode", info.Mode().Perm().String())
	}
	return nil
}

// dsn builds a go-sqlite3 URI for the file with the given parameters;
// characters that end the file name in a URI are escaped.
func dsn(file, params string) string {
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(file) + "?" + params
}

// ErrNotCreated means that no server has created the database yet: there
// is no SQLite file at the path (nor, maybe, its folder), or the database
// has none of the API's tables. `freightsite api` creates and migrates it
// when it first starts; what reads it only (the build) never does.
var ErrNotCreated = errors.New("no server has created the database yet (freightsite api creates it when it first starts)")

// openReadOnly opens an existing database for reading only, for the
// build: it neither creates the file nor changes it. A database not
// created yet is ErrNotCreated; one that cannot be reached is an error of
// its own.
func openReadOnly(path string) (*sql.DB, error) {
	var db *sql.DB
	var err error
	if IsPostgres(path) {
		if db, err = openPostgres(path, true); err != nil {
			return nil, err
		}
	} else {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", path, ErrNotCreated)
		} else if err != nil {
			return nil, err
		}
		if db, err = sql.Open("sqlite3", dsn(path, "mode=ro&_busy_timeout=5000")); err != nil {
			return nil, err
		}
	}
	var migrations int
	err = db.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&migrations)
	if err == nil && migrations > 0 {
		return db, nil
	}
	db.Close()
	if err == nil || isMissingTable(err) {
		return nil, fmt.Errorf("%s: %w", DisplayName(path), ErrNotCreated)
	}
	return nil, fmt.Errorf("opening %s: %w", DisplayName(path), err)
}

// openWriter opens the single writer connection. On SQLite: WAL,
// synchronous FULL (a committed write survives power loss), IMMEDIATE
// transactions (the write lock is taken at BEGIN, so no upgrade
// deadlocks), foreign keys. PostgreSQL has all of that by default.
func openWriter(path string) (*sql.DB, error) {
	var db *sql.DB
	var err error
	if IsPostgres(path) {
		db, err = openPostgres(path, false)
	} else {
		db, err = sql.Open("sqlite3", dsn(path, "_journal_mode=WAL&_synchronous=FULL&_busy_timeout=5000&_txlock=immediate&_foreign_keys=1"))
	}
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	if err := ping(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening %s: %w", DisplayName(path), storageError(err))
	}
	return db, nil
}

// ping opens the connection. Two processes opening a new SQLite file at
// once both switch it to WAL, which needs the file to itself: SQLite
// refuses one of them at once, without waiting out the busy timeout, so
// that one tries again for as long as the timeout (5 s).
func ping(db *sql.DB) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := db.Ping()
		var se sqlite3.Error
		if err == nil || !errors.As(err, &se) || se.Code != sqlite3.ErrBusy || time.Now().After(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Close finishes the queued writes and closes the database.
func (s *Store) Close() error {
	s.once.Do(func() { close(s.closed) })
	s.wg.Wait()
	s.newsVersion.Close()
	return s.read.Close()
}

// Postgres reports whether the store is on PostgreSQL.
func (s *Store) Postgres() bool { return s.pg }

// Written is signalled after a commit that changed something (at most
// one signal waits): the mail sender sleeps on it.
func (s *Store) Written() <-chan struct{} { return s.written }

// Commits counts the commits that changed something. It moves before
// their writers are answered, so a caller that reads after its write
// returns finds it moved.
func (s *Store) Commits() int64 { return s.commits.Load() }

// QueueDepth is how many writes wait for the writer.
func (s *Store) QueueDepth() int { return len(s.queue) }

// ObserveBatches has observe called with the size of each committed batch.
func (s *Store) ObserveBatches(observe func(n int)) { s.batches.Store(&observe) }

// DuringOutage reports whether err is the database refusing writes while
// an outage is under way, and if so counts it with the outage, whose own
// lines log it: the caller need not.
func (s *Store) DuringOutage(err error) bool {
	if !errors.Is(err, ErrUnavailable) || !s.outage.active() {
		return false
	}
	s.outage.fail(0, err)
	return true
}

// Write runs fn in the next group-commit transaction and returns once that
// transaction is durable. fn runs inside its own savepoint: when it fails,
// only its changes are undone and the others in the batch still commit;
// its error is returned (as ErrUnavailable when it means the database
// cannot write now).
func (s *Store) Write(ctx context.Context, fn func(*Tx) error) error {
	return s.write(ctx, func(tx *sql.Tx) error { return fn(&Tx{tx: tx, pg: s.pg}) })
}

func (s *Store) write(ctx context.Context, fn func(*sql.Tx) error) error {
	job := &writeJob{fn: fn, done: make(chan error, 1)}
	// Waiting for a place in the queue is bounded; once queued, the job
	// is always answered, so a caller never leaves a write half-known.
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	select {
	case s.queue <- job:
	case <-s.closed:
		return ErrUnavailable
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return s.fault(fmt.Errorf("%w: write queue full", ErrUnavailable))
	}
	return <-job.done
}

func (s *Store) writeLoop(w *sql.DB) {
	defer s.wg.Done()
	defer func() {
		if w != nil {
			w.Close()
		}
	}()
	batch := make([]*writeJob, 0, MaxBatch)
	for {
		var first *writeJob
		select {
		case first = <-s.queue:
		case <-s.closed:
			// Answer what is still queued, then stop.
			for {
				select {
				case job := <-s.queue:
					batch = append(batch[:0], job)
					w = s.commit(w, batch)
				default:
					return
				}
			}
		}
		batch = append(batch[:0], first)
	drain:
		for len(batch) < MaxBatch {
			select {
			case job := <-s.queue:
				batch = append(batch, job)
			default:
				break drain
			}
		}
		w = s.commit(w, batch)
	}
}

// commit runs one batch in one transaction and answers every job. After
// an error that means the file is not writable it closes the writer, and
// the next batch reopens it, so the store recovers once the disk or the
// file's permissions are fixed.
func (s *Store) commit(w *sql.DB, batch []*writeJob) *sql.DB {
	answer := func(err error) {
		for _, job := range batch {
			job.done <- err
		}
	}
	if w == nil {
		var err error
		if w, err = openWriter(s.db); err != nil {
			s.count(err)
			s.outage.fail(len(batch), err)
			answer(fmt.Errorf("%w: %v", ErrUnavailable, err))
			return nil
		}
	}
	results := make([]error, len(batch))
	committing := false
	err := func() error {
		tx, err := w.Begin()
		if err != nil {
			return err
		}
		// Each job runs in its own savepoint; one statement ends a job's
		// and starts the next one's (a round trip less on PostgreSQL).
		if _, err := tx.Exec(`SAVEPOINT job`); err != nil {
			tx.Rollback()
			return err
		}
		for i, job := range batch {
			results[i] = runJob(job.fn, tx)
			if results[i] != nil {
				if _, err := tx.Exec(`ROLLBACK TO job`); err != nil {
					// SQLite ended the whole transaction itself (it does
					// on a full disk or I/O error): nothing of the batch
					// is kept, and the job's error says why.
					tx.Rollback()
					return errors.Join(results[i], err)
				}
			}
			next := `RELEASE job; SAVEPOINT job`
			if i == len(batch)-1 {
				next = `RELEASE job`
			}
			if _, err := tx.Exec(next); err != nil {
				tx.Rollback()
				return err
			}
		}
		committing = true
		return tx.Commit()
	}()
	if err != nil {
		if committing && commitUnknown(err) {
			err = fmt.Errorf("%w: %v", ErrOutcomeUnknown, err)
		}
		err = s.fault(err) // once for the batch
		if errors.Is(err, ErrUnavailable) || errors.Is(err, ErrOutcomeUnknown) {
			s.outage.fail(len(batch), err)
			answer(err)
			w.Close()
			return nil
		}
		s.log.Error("committing writes", "jobs", len(batch), "err", err)
		answer(err)
		return w
	}
	if observe := s.batches.Load(); observe != nil {
		(*observe)(len(batch))
	}
	changed, refused := false, 0
	var refusal error
	for i := range batch {
		results[i] = s.fault(results[i])
		changed = changed || results[i] == nil
		if errors.Is(results[i], ErrUnavailable) {
			refused, refusal = refused+1, results[i]
		}
	}
	reopen := refused > 0
	if reopen {
		s.outage.fail(refused, refusal)
	} else {
		s.outage.recovered()
	}
	if changed {
		// Counted before anyone is answered: a caller that reads after
		// its write returns must find the count moved.
		s.commits.Add(1)
	}
	for i, job := range batch {
		job.done <- results[i]
	}
	if changed {
		select {
		case s.written <- struct{}{}:
		default:
		}
	}
	if reopen {
		w.Close()
		return nil
	}
	return w
}

// storageError marks SQLite and PostgreSQL errors that mean "cannot
// write now" as ErrUnavailable (the driver's error still in the chain, so
// errorKind can tell which) and keeps every other error as it is.
func storageError(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) {
		return err
	}
	var e sqlite3.Error
	if !errors.As(err, &e) {
		if pgUnavailable(err) {
			return fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		return err
	}
	switch e.Code {
	case sqlite3.ErrReadonly, sqlite3.ErrFull, sqlite3.ErrIoErr, sqlite3.ErrCantOpen, sqlite3.ErrBusy, sqlite3.ErrLocked, sqlite3.ErrNotADB, sqlite3.ErrCorrupt, sqlite3.ErrPerm:
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return err
}

// ErrorKinds are the kinds of database error a store counts (Errors),
// the labels of a dashboard's graph of them:
//   - busy: another writer held the database too long (SQLite busy or
//     locked past its 5 s wait, the write queue full; on PostgreSQL a
//     deadlock, a serialization failure, a lock not available, a
//     statement cancelled): the next try may pass;
//   - connection: no connection to PostgreSQL, or one that broke or
//     timed out (the server down, restarting, out of connections,
//     unreachable);
//   - storage: the database cannot keep what it is given (a read-only
//     file or one that cannot be opened, a full disk, an I/O error,
//     corruption; PostgreSQL out of disk or memory, a read-only standby);
//   - constraint: a write refused by a constraint the code does not
//     expect (a login id taken is an answer, ErrDuplicate, not counted);
//   - outcome_unknown: a commit whose answer never came (ErrOutcomeUnknown);
//   - other: any other error of the database (a query it refused).
//
// A failed batch of writes counts once, as does each read that failed and
// each write of a batch that its own error undid.
var ErrorKinds = [...]string{"busy", "connection", "storage", "constraint", "outcome_unknown", "other"}

const (
	kindBusy = iota
	kindConnection
	kindStorage
	kindConstraint
	kindOutcomeUnknown
	kindOther
	notTheDatabase = -1
)

// Errors counts the database errors met since the store opened, by kind:
// Errors()[i] is of ErrorKinds[i].
func (s *Store) Errors() [len(ErrorKinds)]int64 {
	var n [len(ErrorKinds)]int64
	for i := range n {
		n[i] = s.faults[i].Load()
	}
	return n
}

// fault counts err by its kind when it is the database's and returns it
// as storageError does.
func (s *Store) fault(err error) error {
	s.count(err)
	return storageError(err)
}

func (s *Store) count(err error) {
	if kind := errorKind(err); kind != notTheDatabase {
		s.faults[kind].Add(1)
	}
}

// errorKind is the index in ErrorKinds of a database error, or
// notTheDatabase for no error, an answer (no rows, a duplicate login id),
// a caller that gave up (its context cancelled) or an error of the
// caller's own.
func errorKind(err error) int {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, ErrDuplicate) {
		return notTheDatabase
	}
	if errors.Is(err, ErrOutcomeUnknown) {
		return kindOutcomeUnknown
	}
	var lite sqlite3.Error
	if errors.As(err, &lite) {
		switch lite.Code {
		case sqlite3.ErrBusy, sqlite3.ErrLocked:
			return kindBusy
		case sqlite3.ErrReadonly, sqlite3.ErrFull, sqlite3.ErrIoErr, sqlite3.ErrCantOpen, sqlite3.ErrNotADB, sqlite3.ErrCorrupt, sqlite3.ErrPerm:
			return kindStorage
		case sqlite3.ErrConstraint:
			return kindConstraint
		}
		return kindOther
	}
	if kind := pgErrorKind(err); kind != notTheDatabase {
		return kind
	}
	if errors.Is(err, ErrUnavailable) { // the write queue full
		return kindBusy
	}
	return notTheDatabase
}

// commitUnknown reports whether a COMMIT that failed may have been applied
// all the same: every failure but a refusal the database answered. On
// PostgreSQL a refusal is an ERROR (a serialization failure, a deferred
// constraint, read-only), which rolled the transaction back; a FATAL error
// ends the session (pg_terminate_backend, a shutdown), which the server
// may do after the commit is durable; and a broken connection says
// nothing either way (pgx reports one lost while it waited for COMMIT's
// answer as "conn closed", the error it gives when nothing was sent, so
// pgconn.SafeToRetry proves nothing here). On SQLite an I/O error while
// the commit was written leaves it unknown (the WAL frames may be on
// disk); a full disk, a read-only file or a lock rolled it back.
func commitUnknown(err error) bool {
	var lite sqlite3.Error
	if errors.As(err, &lite) {
		return lite.Code == sqlite3.ErrIoErr
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Severity == "FATAL" || pg.Severity == "PANIC"
	}
	return !errors.Is(err, pgx.ErrTxCommitRollback) && !errors.Is(err, sql.ErrTxDone)
}

// runJob runs one write, turning a panic into its error so one bad
// write can never stop the writer.
func runJob(fn func(*sql.Tx) error, tx *sql.Tx) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("write panicked: %v", v)
		}
	}()
	return fn(tx)
}

// timestamp is how times are stored: RFC 3339 in UTC with milliseconds,
// so they sort as text.
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func parseTimestamp(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}
