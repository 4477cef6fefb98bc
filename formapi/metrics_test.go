package formapi

import (
	"bufio"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// withMetrics turns the metrics on; *m is set to them.
func withMetrics(m **Metrics) apiOption {
	return func(c *Config) {
		c.Metrics = NewMetrics(c.Store)
		*m = c.Metrics
	}
}

// countRequests counts the requests a client sends.
type countRequests struct{ n *atomic.Int64 }

func (c countRequests) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// scrape reads the metrics endpoint over HTTP: each sample's value by its
// name and labels as the text format writes them.
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	samples := map[string]float64{}
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		line := lines.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("sample %q: %v", line, err)
		}
		samples[line[:i]] = v
	}
	return samples
}

// TestMetricsCountWhatHappened scrapes the metrics over HTTP after real
// requests: requests by route template and status, latency, the group
// commit's batches, the outbox, rate-limit refusals, sign-in lockouts and
// captcha step-ups all moved by what was done.
func TestMetricsCountWhatHappened(t *testing.T) {
	var m *Metrics
	oneContact := func(c *Config) {
		c.Rates = maps.Clone(c.Rates)
		c.Rates["contact"] = Rate{N: 1, Per: time.Hour}
	}
	a := newAccountsAPI(t, withTrustedProxy(), oneContact, withMetrics(&m))
	var sent atomic.Int64
	a.client.Transport = countRequests{&sent}
	metrics := httptest.NewServer(m.Handler())
	defer metrics.Close()
	before := scrape(t, metrics.URL)
	requests := func(samples map[string]float64) (n float64) {
		for k, v := range samples {
			if strings.HasPrefix(k, "freightsite_http_requests_total{") {
				n += v
			}
		}
		return n
	}

	for range 3 {
		a.get("/countries").Body.Close()
	}
	a.get("/api/news/1").Body.Close()
	a.get("/api/news/999999").Body.Close()
	a.get("/api/no-such-call").Body.Close()
	expectStatus(t, a.postJSON("/api/contact_us", validContact()), http.StatusOK)
	expectStatus(t, a.postJSON("/api/contact_us", validContact()), http.StatusTooManyRequests)
	a.register("ravi@carriers.example", "Cargo#777")
	attackers := []string{"198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.4"}
	a.attack("ravi@carriers.example", attackers...)
	a.signInFrom("203.0.113.7", "ravi@carriers.example", "Cargo#777", "")              // step-up
	a.signInFrom(attackers[0], "ravi@carriers.example", "Cargo#777", a.solveCaptcha()) // locked
	a.signInFrom(attackers[1], "ravi@carriers.example", "Cargo#777", a.solveCaptcha()) // locked

	// A request is counted when its handler returns, which may be just
	// after the client has the whole answer: scrape until every one is.
	after := scrape(t, metrics.URL)
	for deadline := time.Now().Add(10 * time.Second); requests(after)-requests(before) < float64(sent.Load()) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		after = scrape(t, metrics.URL)
	}
	if got := requests(after) - requests(before); got != float64(sent.Load()) {
		t.Errorf("%v requests counted, %d sent", got, sent.Load())
	}
	moved := func(series string) float64 { return after[series] - before[series] }
	byRoute := func(prefix string) (n float64) {
		for k, v := range after {
			if strings.HasPrefix(k, prefix) {
				n += v - before[k]
			}
		}
		return n
	}
	for _, c := range []struct {
		what string
		got  float64
		want float64
	}{
		{"GET /countries answered 200", moved(`freightsite_http_requests_total{method="GET",route="/countries",status="200"}`), 3},
		{"GET /countries timed", moved(`freightsite_http_request_duration_seconds_count{route="/countries"}`), 3},
		{"GET /api/news/{id}, both ids under the template", byRoute(`freightsite_http_requests_total{method="GET",route="/api/news/{id}"`), 2},
		{"GET of no route", moved(`freightsite_http_requests_total{method="GET",route="other",status="404"}`), 1},
		{"contact posts acknowledged", moved(`freightsite_http_requests_total{method="POST",route="/api/contact_us",status="200"}`), 1},
		{"contact posts refused", moved(`freightsite_http_requests_total{method="POST",route="/api/contact_us",status="429"}`), 1},
		{"contact rate-limit refusals", moved(`freightsite_rate_limited_total{limit="contact"}`), 1},
		{"outbox sent", after[`freightsite_outbox_messages{state="sent"}`], 0},
		{"sign-ins refused by a lockout", moved(`freightsite_signin_locked_total`), 2},
		{"sign-ins stepped up to a captcha", moved(`freightsite_signin_captcha_stepups_total`), 1},
		{"write queue depth, idle", after[`freightsite_store_write_queue_depth`], 0},
	} {
		if c.got != c.want {
			t.Errorf("%s: moved by %v, want %v", c.what, c.got, c.want)
		}
	}
	if n, sum := moved(`freightsite_store_commit_batch_size_count`), moved(`freightsite_store_commit_batch_size_sum`); n < 2 || sum < n {
		t.Errorf("commit batches: %v batches of %v writes; want the contact post's and the registration's at least", n, sum)
	}
	if n := moved(`freightsite_outbox_messages{state="pending"}`); n < 1 {
		t.Errorf("outbox pending moved by %v; the contact post queued a notification", n)
	}
	if _, ok := after[`go_goroutines`]; !ok {
		t.Error("no Go runtime metrics")
	}
}
