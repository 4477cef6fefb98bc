package formapi

import "net/http"

// handleHealthz answers 200 once the server accepts requests; tests and
// operators poll it for readiness.
func handleHealthz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
}
