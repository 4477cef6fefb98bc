package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// load is one bounded load run: workers send requests back to back over
// kept-alive connections until requests have been sent or duration has
// passed, whichever comes first. A short warm-up (not counted, warmUp
// requests a worker) opens the connections first, unless the run is cold
// (the first answers are the point: the sign-in throttle's). Every answer
// must have one of the expected statuses: anything else means the run
// measured something other than what it is named after.
type load struct {
	name     string
	request  func() (*http.Request, error)
	expect   []int
	workers  int
	requests int
	duration time.Duration
	warmUp   int
	cold     bool
	// server is the process answering (with its children: nginx's
	// workers), whose CPU time the run reports per request.
	server int
	// wrk: wrk sends GETs of this URL instead (wrkLoad), not the client
	wrk string
}

// loadResult is what a run measured.
type loadResult struct {
	Name      string      `json:"name"`
	Workers   int         `json:"workers"`
	Requests  int         `json:"requests"`
	Failed    int         `json:"failed"` // transport errors, no answer
	Status    map[int]int `json:"status"`
	Seconds   float64     `json:"seconds"`
	PerSecond float64     `json:"perSecond"`
	P50ms     float64     `json:"p50ms"`
	P99ms     float64     `json:"p99ms"`
	MaxMs     float64     `json:"maxMs"`
	// BodyBytes is the mean size of an answer's body as sent (gzip when
	// the server compressed it: the client asks for gzip, as browsers do).
	BodyBytes int `json:"bodyBytes"`
	// ServerCPUus is the CPU time the server spent per answer, in
	// microseconds: a figure a busy machine disturbs less than req/s.
	ServerCPUus float64 `json:"serverCpuMicroseconds"`
}

// newClient is an HTTP client with a kept-alive connection per worker
// that neither follows redirects nor decompresses (the bytes on the wire
// are what is measured).
func newClient(workers int) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConns:        workers,
			MaxIdleConnsPerHost: workers,
			MaxConnsPerHost:     workers,
			DisableCompression:  true,
			IdleConnTimeout:     time.Minute,
		},
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func (l load) run() loadResult {
	client := newClient(l.workers)
	defer client.CloseIdleConnections()
	send := func() (status, size int, err error) {
		req, err := l.request()
		if err != nil {
			return 0, 0, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, 0, err
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, int(n), err
	}

	// Warm-up: every worker's connection opened and used a few times.
	var wg sync.WaitGroup
	for range l.workers {
		if l.cold {
			break
		}
		wg.Go(func() {
			for range l.warmUp {
				send()
			}
		})
	}
	wg.Wait()

	ctx, cancel := context.WithTimeout(context.Background(), l.duration)
	defer cancel()
	var issued atomic.Int64
	type workerResult struct {
		latencies []time.Duration
		status    map[int]int
		failed    int
		bytes     int
	}
	results := make([]workerResult, l.workers)
	cpu0 := processCPU(l.server)
	start := time.Now()
	for w := range l.workers {
		wg.Go(func() {
			r := workerResult{status: map[int]int{}}
			for ctx.Err() == nil && issued.Add(1) <= int64(l.requests) {
				t0 := time.Now()
				status, size, err := send()
				d := time.Since(t0)
				if err != nil {
					r.failed++
					continue
				}
				r.latencies = append(r.latencies, d)
				r.status[status]++
				r.bytes += size
			}
			results[w] = r
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := processCPU(l.server) - cpu0

	out := loadResult{Name: l.name, Workers: l.workers, Status: map[int]int{}, Seconds: round(elapsed.Seconds(), 2)}
	var all []time.Duration
	bytes := 0
	for _, r := range results {
		all = append(all, r.latencies...)
		out.Failed += r.failed
		bytes += r.bytes
		for k, v := range r.status {
			out.Status[k] += v
		}
	}
	slices.Sort(all)
	out.Requests = len(all) + out.Failed
	if n := len(all); n > 0 {
		out.PerSecond = round(float64(n)/elapsed.Seconds(), 0)
		out.P50ms = ms(all[n/2])
		out.P99ms = ms(all[min(n-1, n*99/100)])
		out.MaxMs = ms(all[n-1])
		out.BodyBytes = bytes / n
		out.ServerCPUus = round(float64(cpu.Microseconds())/float64(n), 1)
	}
	return out
}

func ms(d time.Duration) float64 { return round(float64(d.Microseconds())/1000, 2) }

func round(v float64, places int) float64 {
	p := 1.0
	for range places {
		p *= 10
	}
	return float64(int64(v*p+0.5)) / p
}

// statusText is "200×41234 429×5" for a result's answers.
func (r loadResult) statusText() string {
	codes := make([]int, 0, len(r.Status))
	for c := range r.Status {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	s := ""
	for _, c := range codes {
		s += fmt.Sprintf("%d×%d ", c, r.Status[c])
	}
	if r.Failed > 0 {
		s += fmt.Sprintf("failed×%d", r.Failed)
	}
	return s
}

// unexpected says what is wrong with a run's answers ("" if nothing):
// transport errors, a status not expected, or no answer at all.
func (r loadResult) unexpected(expect []int) string {
	if r.Failed > 0 {
		return fmt.Sprintf("%d requests got no answer", r.Failed)
	}
	if r.Requests == 0 {
		return "no request was answered"
	}
	for status, n := range r.Status {
		if !slices.Contains(expect, status) {
			return fmt.Sprintf("%d answers with status %d (want %v)", n, status, expect)
		}
	}
	return ""
}

// processCPU is the CPU time (user and system) process pid and its
// children have used so far, from /proc (0 where there is none).
func processCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces): utime and
	// stime are the 12th and 13th, in clock ticks of 1/100 s.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	var ticks int64
	for _, i := range []int{11, 12} {
		if i < len(f) {
			n, _ := strconv.ParseInt(f[i], 10, 64)
			ticks += n
		}
	}
	total := time.Duration(ticks) * 10 * time.Millisecond
	children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	for _, c := range strings.Fields(string(children)) {
		if n, err := strconv.Atoi(c); err == nil {
			total += processCPU(n)
		}
	}
	return total
}
