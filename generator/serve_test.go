package generator

import (
	"net/http"

	"freightsite/internal/site"
)

// The tests of what a build wrote serve it as freightsite serve does
// (internal/site).

type NewsLookup = site.NewsLookup

// Site serves the build published at dist.
func Site(dist string, news NewsLookup) (http.Handler, error) { return site.Site(dist, news) }
