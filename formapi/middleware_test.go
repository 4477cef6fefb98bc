package formapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// recordingHolder is a WriteHolder that records what it was asked.
type recordingHolder struct{ calls []string }

func (h *recordingHolder) Hold()          { h.calls = append(h.calls, "hold") }
func (h *recordingHolder) Release() error { h.calls = append(h.calls, "release"); return nil }

// TestAnswersAreHeldWhole: the connection holds each answer from before
// its handler runs until it has been written whole, flushed out of
// net/http's buffers when its length is known; an answer its handler
// flushes is released at the flush and streamed from there.
func TestAnswersAreHeldWhole(t *testing.T) {
	page := strings.Repeat("x", 9000)
	for _, c := range []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"whole", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "9000")
			w.Write([]byte(page))
			holder(r).calls = append(holder(r).calls, "handler")
		}, "hold handler flushed release"},
		{"streamed", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("data: 0\n\n"))
			holder(r).calls = append(holder(r).calls, "handler")
			http.NewResponseController(w).Flush()
			holder(r).calls = append(holder(r).calls, "handler")
			w.Write([]byte("data: 1\n\n"))
		}, "hold handler flushed release handler"},
	} {
		h := &recordingHolder{}
		handler := logRequests(slog.New(slog.DiscardHandler), nil, c.handler)
		w := &flushRecorder{httptest.NewRecorder(), h}
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		handler.ServeHTTP(w, r.WithContext(WithWriteHolder(r.Context(), h)))
		if got := strings.Join(h.calls, " "); got != c.want {
			t.Errorf("%s answer: %q, want %q", c.name, got, c.want)
		}
	}
}

func holder(r *http.Request) *recordingHolder {
	return r.Context().Value(writeHolderKey{}).(*recordingHolder)
}

// flushRecorder notes net/http's flush among the holder's calls.
type flushRecorder struct {
	*httptest.ResponseRecorder
	h *recordingHolder
}

func (f *flushRecorder) Flush() {
	f.h.calls = append(f.h.calls, "flushed")
	f.ResponseRecorder.Flush()
}

// TestAPanicIsA500: a handler that panics gets the client a generic JSON
// 500 (no stack trace), the log the panic and its stack, and the
// connection holds nothing back.
func TestAPanicIsA500(t *testing.T) {
	var log strings.Builder
	logger := slog.New(slog.NewTextHandler(&log, nil))
	h := &recordingHolder{}
	handler := recoverPanics(logger, logRequests(logger, nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic("the lorry has no wheels")
	})))
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/api/news", nil)
	handler.ServeHTTP(w, r.WithContext(WithWriteHolder(r.Context(), h)))
	if body := w.Body.String(); w.Code != 500 || !strings.Contains(body, `"internal error"`) || strings.Contains(body, "wheels") || strings.Contains(body, "goroutine") {
		t.Errorf("answer %d %q", w.Code, body)
	}
	if !strings.Contains(log.String(), "the lorry has no wheels") || !strings.Contains(log.String(), "middleware_test.go") {
		t.Errorf("the log does not hold the panic and its stack:\n%s", log.String())
	}
	if got := strings.Join(h.calls, " "); got != "hold release" {
		t.Errorf("the holder was asked %q, want \"hold release\"", got)
	}
}
