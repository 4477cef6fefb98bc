package formapi

import "net/http"

// handleHealthz answers 200 once the server accepts requests; tests and
// operators poll it for readiness.
func handleHealthz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
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
