package generator

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"freightsite/internal/site"
)

// The tests of what a build wrote serve it as freightsite serve does
// (internal/site).

type NewsLookup = site.NewsLookup

// Site serves the build published at dist.
func Site(dist string, news NewsLookup) (http.Handler, error) { return site.Site(dist, news) }

// httptestServer serves h on loopback until the test ends; it returns the URL.
func httptestServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func get(t *testing.T, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept-Encoding", "identity")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	// A bare transport: no redirects followed, no transparent gzip.
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}
