package formapi

import (
	"bytes"
	"encoding/json"
	"net/http"
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
