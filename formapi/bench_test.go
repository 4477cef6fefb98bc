package formapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkContactPosts posts contact messages from 64 concurrent clients
// over loopback HTTP into a real SQLite file (synchronous FULL, group
// commit) and reports acknowledged posts per second and the p50/p99
// latency.
//
//	go test -run '^$' -bench ContactPosts -benchtime 5000x ./formapi
func BenchmarkContactPosts(b *testing.B) {
	a := newTestAPI(b, unlimited())
	token := a.token()
	body, _ := json.Marshal(validContact())
	const clients = 64
	var mu sync.Mutex
	latencies := make([]time.Duration, 0, b.N)
	jobs := make(chan struct{}, b.N)
	for range b.N {
		jobs <- struct{}{}
	}
	close(jobs)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for range jobs {
				req, _ := http.NewRequest(http.MethodPost, a.srv.URL+"/api/contact_us", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set(xsrfHeader, token)
				req.AddCookie(&http.Cookie{Name: xsrfCookie, Value: token})
				t0 := time.Now()
				resp, err := http.DefaultTransport.RoundTrip(req)
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Errorf("post failed: %v %v", err, resp)
					return
				}
				resp.Body.Close()
				d := time.Since(t0)
				mu.Lock()
				latencies = append(latencies, d)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(latencies)
	if n := len(latencies); n > 0 {
		b.ReportMetric(float64(n)/elapsed.Seconds(), "posts/s")
		b.ReportMetric(float64(latencies[n/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(latencies[n*99/100].Microseconds())/1000, "p99-ms")
	}
	if got := a.count(`SELECT COUNT(*) FROM contact_messages`); got != len(latencies) {
		b.Errorf("%d rows for %d acknowledged posts", got, len(latencies))
	}
}

// BenchmarkMetricsOverhead serves GET /api/news/{id} in process (no
// network, so the middleware's cost is not lost in the noise) with the
// metrics off and on: the difference is what counting a request costs.
//
//	go test -run '^$' -bench MetricsOverhead -benchmem ./formapi
func BenchmarkMetricsOverhead(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := map[bool]string{false: "off", true: "on"}[on]
		b.Run(name, func(b *testing.B) {
			var opts []apiOption
			if on {
				var m *Metrics
				opts = append(opts, withMetrics(&m))
			}
			a := newTestAPI(b, opts...)
			h := a.srv.Config.Handler
			req := httptest.NewRequest(http.MethodGet, "/api/news/1", nil)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("GET /api/news/1: %d", w.Code)
				}
			}
		})
	}
}
