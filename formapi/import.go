package formapi

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
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
// (limitUploadRate). The checks share the processors (checkSlots,
// FileChecks): a client past its checks at once gets 429, a check that
// finds no turn in time 503.
func handleImportValidate(slots *checkSlots, clientIP func(*http.Request) string) http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		return importFile(w, r, slots, clientIP, func(file *turnReader, name string) error {
			rep, err := receivables.Validate(file, receivables.Options{MaxErrors: receivables.DefaultMaxErrors})
			rep.File = name
			return answerWhenRead(w, file.rest(), err, func() { writeJSON(w, http.StatusOK, rep) })
		})
	})
}

// handleImportFix writes a corrected copy of a receivables import file
// sent as the multipart field "file" (receivables.Fix: what is certain,
// nothing else) and answers it as a CSV download, its name the file's with
// "-corrected", and X-Changes saying how many changes it made. The copy
// goes to a temporary file as the upload streams in, so memory stays small
// whatever its size, and is sent once the whole upload has arrived. A file
// that cannot be corrected at all (not CSV text, a row too long to read)
// gets 422 with its report; one over 50 MB 413, as for
// /api/import/validate, whose turns (slots) it shares.
func handleImportFix(slots *checkSlots, clientIP func(*http.Request) string) http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		return importFile(w, r, slots, clientIP, func(file *turnReader, name string) error {
			copyFile, err := os.CreateTemp("", "freightsite-fix-*.csv")
			if err != nil {
				return err
			}
			defer os.Remove(copyFile.Name())
			defer copyFile.Close()
			res, err := receivables.Fix(file, copyFile, nil)
			res.Report.File = name
			rest := file.rest()
			if err != nil || !res.Complete {
				return answerWhenRead(w, rest, err, func() { writeJSON(w, http.StatusUnprocessableEntity, res.Report) })
			}
			size, err := copyFile.Seek(0, io.SeekCurrent)
			if err == nil {
				_, err = copyFile.Seek(0, io.SeekStart)
			}
			if err != nil {
				return err
			}
			return answerWhenRead(w, rest, nil, func() {
				base := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
				if base == "" || base == "." {
					base = "receivables"
				}
				h := w.Header()
				h.Set("Content-Type", "text/csv; charset=utf-8")
				h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": base + "-corrected.csv"}))
				h.Set("Content-Length", strconv.FormatInt(size, 10))
				h.Set("X-Changes", strconv.Itoa(res.Changes))
				w.WriteHeader(http.StatusOK)
				_, _ = io.Copy(w, copyFile)
			})
		})
	})
}

// importFile finds the multipart field "file" of an import call and hands
// it to use as it streams in, at most receivables.Format.MaxFileBytes of
// it, with the name the browser gave it, once the client may check one
// more file and a turn to compute is free (slots).
func importFile(w http.ResponseWriter, r *http.Request, slots *checkSlots, clientIP func(*http.Request) string, use func(file *turnReader, name string) error) error {
	client := clientaddr.KeyString(clientIP(r))
	if !slots.enter(client) {
		w.Header().Set("Retry-After", "10")
		w.Header().Set("Connection", "close") // the body is not read
		return &httpError{http.StatusTooManyRequests, "this address is checking as many files as it may at once: wait for them to finish", "api.errors.tooManyRequests"}
	}
	defer slots.leave(client)
	limit := receivables.Format.MaxFileBytes
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
			return errTooLargeImport
		case err == io.EOF:
			return badRequest(`no file: send it in the field "file"`)
		case err != nil:
			return badRequest("the upload is not valid multipart/form-data")
		}
		if part.FormName() != "file" {
			continue // NextPart skips the rest of this part
		}
		turn, err := slots.take(r.Context(), http.MaxBytesReader(w, part, limit))
		if err != nil {
			w.Header().Set("Retry-After", "5")
			w.Header().Set("Connection", "close")
			return err
		}
		defer turn.done()
		return use(turn, part.FileName()) // multipart keeps only the base name
	}
}

var errTooLargeImport = &httpError{http.StatusRequestEntityTooLarge, "the file is larger than 50 MB: split it into parts smaller than 50 MB, each starting with the heading line, and check each part", msgTooLarge}

// answerWhenRead reads the rest of the file (reading may stop early: not
// CSV, a row too long), so the browser gets the answer, not a reset, then
// answers; a file over the limit or cut off (err, the error reading it so
// far) gets its error instead.
func answerWhenRead(w http.ResponseWriter, file io.Reader, err error, answer func()) error {
	if err == nil {
		_, err = io.Copy(io.Discard, file)
	}
	var big *http.MaxBytesError
	switch {
	case errors.As(err, &big):
		return errTooLargeImport
	case err != nil:
		return badRequest("the upload was cut off before the end of the file")
	}
	answer()
	return nil
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

// rest gives the turn up and returns the file's reader, for what is left
// after the check (read to the end, at no cost worth a turn).
func (t *turnReader) rest() io.Reader {
	t.done()
	return t.r
}
