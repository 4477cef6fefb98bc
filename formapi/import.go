package formapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"sync"
	"time"

	"freightsite/internal/clientaddr"
	"freightsite/receivables"
)

// multipartSlack is what a request may carry besides the file itself:
// part headers, boundaries and small fields.
const multipartSlack = 64 << 10

// handleImportValidate checks a receivables import file sent as the
// multipart field "file" and answers its report (the JSON of
// receivables.Report, valid or not, with status 200). The file is
// validated as it streams in, so memory stays small whatever its size; a
// file over receivables.Format.MaxFileBytes (50 MB: the feedback upload's
// 5 MB scaled up) gets 413. The route gives it an upload's time
// (limitUploadRate). The checks share the processors (slots, FileChecks):
// a client past its checks at once gets 429, a check that finds no turn
// in time 503.
func handleImportValidate(slots *checkSlots, clientIP func(*http.Request) string) http.Handler {
	limit := receivables.Format.MaxFileBytes
	tooLarge := &httpError{http.StatusRequestEntityTooLarge, "the file is larger than 50 MB: split it into parts smaller than 50 MB, each starting with the heading line, and check each part", msgTooLarge}
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		client := clientaddr.KeyString(clientIP(r))
		if !slots.enter(client) {
			w.Header().Set("Retry-After", "10")
			w.Header().Set("Connection", "close") // the body is not read
			return &httpError{http.StatusTooManyRequests, "this address is checking as many files as it may at once: wait for them to finish", "api.errors.tooManyRequests"}
		}
		defer slots.leave(client)
		r.Body = http.MaxBytesReader(w, r.Body, limit+multipartSlack)
		parts, err := r.MultipartReader()
		if err != nil {
			return badRequest(`send the file as multipart/form-data in the field "file"`)
		}
		for {
			part, err := parts.NextPart()
			var big *http.MaxBytesError
			switch {
			case errors.As(err, &big):
				return tooLarge
			case err == io.EOF:
				return badRequest(`no file: send it in the field "file"`)
			case err != nil:
				return badRequest("the upload is not valid multipart/form-data")
			}
			if part.FormName() != "file" {
				continue // NextPart skips the rest of this part
			}
			file := http.MaxBytesReader(w, part, limit)
			turn, err := slots.take(r.Context(), file)
			if err != nil {
				w.Header().Set("Retry-After", "5")
				w.Header().Set("Connection", "close")
				return err
			}
			rep, err := receivables.Validate(turn, receivables.Options{MaxErrors: receivables.DefaultMaxErrors})
			turn.done()
			if err == nil {
				// Validation may stop early (not CSV, a row too long); read
				// the rest so the browser gets the answer, not a reset.
				_, err = io.Copy(io.Discard, file)
			}
			switch {
			case errors.As(err, &big):
				return tooLarge
			case err != nil:
				return badRequest("the upload was cut off before the end of the file")
			}
			rep.File = part.FileName() // multipart keeps only the base name
			writeJSON(w, http.StatusOK, rep)
			return nil
		}
	})
}

// FileChecks bound the CPU the import checks take. A check computes
// between reads of its upload; AtOnce checks compute at once, and a
// check that waits for its turn longer than Wait before it starts is
// answered 503. The turn is given up while the check waits for the next
// bytes of its file, so a slow upload holds no one up. PerClient checks
// of one client (clientaddr) run at once; another is answered 429.
type FileChecks struct {
	AtOnce, PerClient int
	Wait              time.Duration
}

// DefaultFileChecks leave half the processors (at least one) to every
// other call, and let a client check two files at once.
func DefaultFileChecks() FileChecks {
	return FileChecks{AtOnce: max(1, runtime.GOMAXPROCS(0)/2), PerClient: 2, Wait: 10 * time.Second}
}

// checkSlots holds the turns of FileChecks.
type checkSlots struct {
	limits  FileChecks
	turns   chan struct{} // a check holds one while it computes
	mu      sync.Mutex
	clients map[string]int
}

func newCheckSlots(l FileChecks) *checkSlots {
	d := DefaultFileChecks()
	if l.AtOnce <= 0 {
		l.AtOnce = d.AtOnce
	}
	if l.PerClient <= 0 {
		l.PerClient = d.PerClient
	}
	if l.Wait <= 0 {
		l.Wait = d.Wait
	}
	return &checkSlots{limits: l, turns: make(chan struct{}, l.AtOnce), clients: map[string]int{}}
}

// enter counts a client's check in, unless it has PerClient running.
func (s *checkSlots) enter(client string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.clients[client] >= s.limits.PerClient {
		return false
	}
	s.clients[client]++
	return true
}

func (s *checkSlots) leave(client string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.clients[client]--; s.clients[client] <= 0 {
		delete(s.clients, client)
	}
}

var errChecksBusy = &httpError{http.StatusServiceUnavailable, "the server is checking other files: try again in a few seconds", "api.errors.busy"}

// take waits (at most Wait) for a first turn to read file in, and
// returns the reader that keeps the turn while it computes.
func (s *checkSlots) take(ctx context.Context, file io.Reader) (*turnReader, error) {
	turn := &turnReader{r: file, ctx: ctx, turns: s.turns, held: true}
	select {
	case s.turns <- struct{}{}:
		return turn, nil
	default:
	}
	timer := time.NewTimer(s.limits.Wait)
	defer timer.Stop()
	select {
	case s.turns <- struct{}{}:
		return turn, nil
	case <-timer.C:
		return nil, errChecksBusy
	case <-ctx.Done():
		return nil, badRequest("the request ended while it waited for its turn")
	}
}

// turnReader gives its check's turn up during each read of the upload
// and takes it back (waiting in line, first come first served) before
// returning what it read, so only the checks computing hold turns.
type turnReader struct {
	r     io.Reader
	ctx   context.Context
	turns chan struct{}
	held  bool
}

func (t *turnReader) Read(p []byte) (int, error) {
	t.done()
	n, err := t.r.Read(p)
	select {
	case t.turns <- struct{}{}:
		t.held = true
	case <-t.ctx.Done():
		return 0, t.ctx.Err()
	}
	return n, err
}

// done gives the turn up for good (Read takes it again).
func (t *turnReader) done() {
	if t.held {
		t.held = false
		<-t.turns
	}
}
