package formapi

import (
	"context"
	"fmt"
	"freightsite/internal/store"
	"net/http"
	"time"
)

// probePaths answer load balancers and supervisors: they set no cookie
// and a successful answer writes no log line (a probe every few seconds
// would drown the log).
var probePaths = map[string]bool{"/healthz": true, "/readyz": true}

// handleHealthz answers 200 once the server accepts requests (liveness);
// tests and supervisors poll it. It names the running version.
func handleHealthz(version string) http.Handler {
	body := map[string]string{"status": "ok", "version": version}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, body)
	})
}

// outboxStuckAfter is how long a message may stay due without the sender
// taking it before readiness fails: the sender takes a due message within
// seconds, and a failed delivery moves its next attempt into the future,
// so only a sender that stopped leaves messages due this long.
const outboxStuckAfter = 15 * time.Minute

// readiness is the answer of GET /readyz.
type readiness struct {
	Status   string `json:"status"` // ready, or not ready
	Database string `json:"database"`
	Outbox   struct {
		Pending int `json:"pending"`
		// Overdue counts pending messages due for longer than
		// outboxStuckAfter: the mail sender is not running.
		Overdue int `json:"overdue"`
	} `json:"outbox"`
	Error string `json:"error,omitempty"`
}

// handleReadyz answers 200 when the API can do its work: the database
// takes a write (it is committed, so a full disk or a read-only file
// shows) and the outbox is moving; 503 with what is wrong otherwise.
func handleReadyz(s *store.Store, now func() time.Time) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		ans := readiness{Status: "ready", Database: "writable"}
		var err error
		ans.Outbox.Pending, ans.Outbox.Overdue, err = s.OutboxBacklog(ctx, now().Add(-outboxStuckAfter))
		if err == nil && ans.Outbox.Overdue > 0 {
			err = fmt.Errorf("%d outbox messages have been due for more than %v: is the mail sender running?", ans.Outbox.Overdue, outboxStuckAfter)
		}
		if werr := s.CheckWritable(ctx, now()); werr != nil {
			ans.Database, err = "not writable", fmt.Errorf("the database takes no writes: %w", werr)
		}
		if err != nil {
			ans.Status, ans.Error = "not ready", err.Error()
			noteError(r, err)
			w.Header().Set("Retry-After", "5")
			writeJSON(w, http.StatusServiceUnavailable, ans)
			return
		}
		writeJSON(w, http.StatusOK, ans)
	})
}

// handleXSRFToken is the GET a page on a static host calls before its
// first form post: like every GET, it sets the XSRF-TOKEN cookie when the
// browser has no valid one (protectXSRF does that), so a site served by
// nginx or a CDN gets the cookie from the API.
func handleXSRFToken() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
}
