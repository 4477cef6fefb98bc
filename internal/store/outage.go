package store

import (
	"log/slog"
	"sync"
	"time"
)

// outage logs a time the database cannot be written as one event, not as
// a line per refused request (a few dozen a second on a busy instance):
// an ERROR when the first write fails, one ERROR a minute with how many
// writes failed since the last line while it lasts, and a WARN with how
// long it lasted and how many writes failed in all once a write commits
// again. Each refused request still has its request line, at its usual
// level, with the cause.
type outage struct {
	log   *slog.Logger
	every time.Duration // between the lines while it lasts
	now   func() time.Time

	mu       sync.Mutex
	since    time.Time // zero: no outage
	reported time.Time // the last line
	failed   int       // writes failed since the last line
	total    int       // writes failed since it began
}

func newOutage(log *slog.Logger, now func() time.Time) *outage {
	if now == nil {
		now = time.Now
	}
	return &outage{log: log, every: time.Minute, now: now}
}

// fail notes writes that failed because the database is unavailable
// (jobs may be 0: the mail sender's look at the outbox, say), and logs
// the outage's start or its minute's count when due.
func (o *outage) fail(jobs int, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.now()
	o.failed += jobs
	o.total += jobs
	switch {
	case o.since.IsZero():
		o.since, o.reported = now, now
		o.log.Error("database unavailable: writes are refused until it is back (one line a minute while it lasts)", "err", err)
		o.failed = 0
	case now.Sub(o.reported) >= o.every:
		o.log.Error("database still unavailable", "failed_writes", o.failed, "for", now.Sub(o.since).Round(time.Second).String(), "err", err)
		o.reported, o.failed = now, 0
	}
}

// recovered notes a commit: it ends the outage, if there is one.
func (o *outage) recovered() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.since.IsZero() {
		return
	}
	o.log.Warn("database available again", "after", o.now().Sub(o.since).Round(time.Millisecond).String(), "failed_writes", o.total)
	o.since, o.failed, o.total = time.Time{}, 0, 0
}

// active reports whether an outage is under way.
func (o *outage) active() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return !o.since.IsZero()
}
