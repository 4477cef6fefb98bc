package server

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// openServerLog logs to the file at path (appending), or to stderr when
// path is empty.
func openServerLog(path string, stderr io.Writer) (*serverLog, error) {
	if path == "" {
		return newServerLog(stderr, nil, ""), nil
	}
	f, err := openLogFile(path)
	if err != nil {
		return nil, err
	}
	return newServerLog(f, f, path), nil
}

func openLogFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
}

// reopenOnHangup makes SIGHUP write out the held lines and reopen the log
// file (logrotate's postrotate sends it); it never stops the server.
// Call the function it returns when the server has stopped.
func reopenOnHangup(log *slog.Logger, l *serverLog) (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-hup:
				if err := l.reopen(); err != nil {
					log.Error("SIGHUP: reopening the log file", "file", l.path, "err", err)
				} else if l.path != "" {
					log.Info("SIGHUP: log file reopened", "file", l.path)
				} else {
					log.Info("SIGHUP: held log lines written (logging to standard error: nothing to reopen)")
				}
			}
		}
	}()
	return func() {
		signal.Stop(hup)
		close(done)
	}
}

func newServerLog(w io.Writer, file *os.File, path string) *serverLog {
	l := &serverLog{buf: bufio.NewWriterSize(w, 64<<10), file: file, path: path, done: make(chan struct{})}
	l.wg.Go(func() {
		tick := time.NewTicker(logFlushEvery)
		defer tick.Stop()
		for {
			select {
			case <-l.done:
				return
			case <-tick.C:
				l.flush()
			}
		}
	})
	return l
}

// serverLog holds log lines for at most logFlushEvery and writes them
// together: under load one write carries many request lines instead of
// one write each (nginx's access_log buffer= and flush= do the same). A
// warning or an error is written at once (flushingHandler).
type serverLog struct {
	mu   sync.Mutex
	buf  *bufio.Writer
	file *os.File // the log file, nil for standard error
	path string
	done chan struct{}
	wg   sync.WaitGroup
}

const logFlushEvery = 200 * time.Millisecond

func (l *serverLog) logger() *slog.Logger {
	return slog.New(flushingHandler{slog.NewTextHandler(l, nil), l})
}

func (l *serverLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *serverLog) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Flush()
}

// reopen writes out the held lines and, logging to a file, opens its
// path again: after a rotation renamed it, new lines go to a new file.
func (l *serverLog) reopen() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.buf.Flush(); err != nil || l.file == nil {
		return err
	}
	f, err := openLogFile(l.path)
	if err != nil {
		return err
	}
	l.file.Close()
	l.file = f
	l.buf.Reset(f)
	return nil
}

// stop writes out what is left; call it when the server has stopped.
func (l *serverLog) stop() {
	close(l.done)
	l.wg.Wait()
	l.flush()
	if l.file != nil {
		l.file.Close()
	}
}

// flushingHandler writes out the held lines after a warning or an error.
type flushingHandler struct {
	slog.Handler
	log *serverLog
}

func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		h.log.flush()
	}
	return err
}

func (h flushingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushingHandler{h.Handler.WithAttrs(attrs), h.log}
}

func (h flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{h.Handler.WithGroup(name), h.log}
}
