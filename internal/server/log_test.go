package server

import (
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// newLogger is the text slog of the servers, written to w through a
// serverLog; call stop when the server has stopped.
func newLogger(w io.Writer) (log *slog.Logger, stop func()) {
	l := newServerLog(w, nil, "")
	return l.logger(), l.stop
}

// lockedBuffer is an io.Writer tests can read while a logger writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServerLogWritesEveryLine: request lines are held briefly and written
// together, a warning is written at once (with what came before it), and
// stopping writes what is left.
func TestServerLogWritesEveryLine(t *testing.T) {
	var out lockedBuffer
	log, stop := newLogger(&out)
	log.Info("request", "path", "/api/news")
	log.Warn("mail delivery failed; will retry")
	if got := out.String(); !strings.Contains(got, "path=/api/news") || !strings.Contains(got, "will retry") {
		t.Fatalf("right after a warning the log holds %q", got)
	}
	log.Info("request", "path", "/faq")
	deadline := time.Now().Add(10 * logFlushEvery)
	for !strings.Contains(out.String(), "path=/faq") {
		if time.Now().After(deadline) {
			t.Fatalf("an info line was not written within %v", 10*logFlushEvery)
		}
		time.Sleep(logFlushEvery / 10)
	}
	log.With("server", "api").Error("shutting down")
	log.Info("request", "path", "/last")
	stop()
	if got := out.String(); !strings.Contains(got, "server=api") || !strings.Contains(got, "path=/last") {
		t.Errorf("after stop the log holds %q", got)
	}
}
