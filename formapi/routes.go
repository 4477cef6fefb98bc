package formapi

import (
	"net/http"

	"github.com/gorilla/mux"
)

// addRoutes lists the whole API surface (SPEC §7) in one place.
func addRoutes(r *mux.Router, cfg Config) {
	r.Handle("/healthz", handleHealthz()).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/api/import/validate", handleImportValidate()).Methods(http.MethodPost)
}
