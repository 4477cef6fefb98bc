package formapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestAPanicIsA500: a handler that panics gets the client a generic JSON
// 500 (no stack trace), the log the panic and its stack.
func TestAPanicIsA500(t *testing.T) {
	var log strings.Builder
	logger := slog.New(slog.NewTextHandler(&log, nil))
	handler := recoverPanics(logger, logRequests(logger, nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic("the lorry has no wheels")
	})))
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/api/news", nil)
	handler.ServeHTTP(w, r)
	if body := w.Body.String(); w.Code != 500 || !strings.Contains(body, `"internal error"`) || strings.Contains(body, "wheels") || strings.Contains(body, "goroutine") {
		t.Errorf("answer %d %q", w.Code, body)
	}
	if !strings.Contains(log.String(), "the lorry has no wheels") || !strings.Contains(log.String(), "middleware_test.go") {
		t.Errorf("the log does not hold the panic and its stack:\n%s", log.String())
	}
}
