package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"freightsite/internal/pgtest"
)

// measurePostgres runs the contact-post load against `freightsite api` on
// PostgreSQL (a throwaway cluster, fsync on like SQLite's synchronous
// FULL), with one instance and with two sharing the database (the load
// alternating between them, as nginx's upstream does), and prints them
// beside sqlite, the same load on SQLite measured by measureLoads.
func measurePostgres(out io.Writer, bin, tmp string, sz size, sqlite loadResult) ([]loadResult, error) {
	cluster, err := pgtest.Start(pgtest.Options{Durable: true})
	if err != nil {
		return nil, err
	}
	defer cluster.Stop()
	results := []loadResult{sqlite}
	for _, instances := range []int{1, 2} {
		db, err := cluster.NewDatabase(context.Background())
		if err != nil {
			return nil, err
		}
		r, err := contactPosts(bin, tmp, db, instances, sz)
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}

	fmt.Fprintf(out, "\n== contact posts, acknowledged (stored and committed): SQLite against PostgreSQL %s (fsync on), %d clients, `freightsite api` processes\n", pgVersion(), clients)
	fmt.Fprintf(out, "%-24s %9s %9s %8s %8s\n", "store", "instances", "posts/s", "p50 ms", "p99 ms")
	for i, r := range results {
		store, instances := "PostgreSQL", i
		if i == 0 {
			store, instances = "SQLite (serve, above)", 1
		}
		fmt.Fprintf(out, "%-24s %9d %9.0f %8.2f %8.2f\n", store, instances, r.PerSecond, r.P50ms, r.P99ms)
	}
	return results[1:], nil
}

// contactPosts runs the contact-post load against instances `freightsite
// api` processes on db, the requests alternating between them.
func contactPosts(bin, tmp, db string, instances int, sz size) (loadResult, error) {
	var sites []string
	for i := range instances {
		addr := freeAddr()
		logFile := filepath.Join(tmp, fmt.Sprintf("api-pg-%d-%d.log", instances, i))
		api, err := start(logFile, bin, "api", "--addr", addr, "--db", db, "--rate-limit", "contact=off")
		if err != nil {
			return loadResult{}, err
		}
		defer stop(api)
		if err := waitUp("http://" + addr + "/healthz"); err != nil {
			log, _ := os.ReadFile(logFile)
			return loadResult{}, fmt.Errorf("freightsite api on %s: %w\n%s", db, err, tail(log, 20))
		}
		sites = append(sites, "http://"+addr)
	}
	// The anti-forgery secret is in the database: a token from one
	// instance is good at the other.
	token, err := xsrfToken(sites[0])
	if err != nil {
		return loadResult{}, err
	}
	contact, _ := json.Marshal(map[string]string{"name": "Load Test", "email": "load@example.in", "phone": "9876543210", "subject": "Truck availability", "message": "Two 32-foot containers free from Pune to Nagpur on Monday."})
	var next atomic.Uint64
	l := load{
		name: fmt.Sprintf("POST /api/contact_us, PostgreSQL x%d", instances),
		request: func() (*http.Request, error) {
			site := sites[next.Add(1)%uint64(len(sites))]
			req, err := http.NewRequest(http.MethodPost, site+"/api/contact_us", strings.NewReader(string(contact)))
			if err == nil {
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-XSRF-TOKEN", token)
				req.Header.Set("X-Requested-With", "XMLHttpRequest")
				req.AddCookie(&http.Cookie{Name: "XSRF-TOKEN", Value: token})
			}
			return req, err
		},
		expect: []int{http.StatusOK}, workers: clients, requests: sz.maxRequests, duration: sz.runFor, warmUp: sz.warmUp,
	}
	r := l.run()
	if why := r.unexpected(l.expect); why != "" {
		return r, fmt.Errorf("%s measured something else: %s", r.Name, why)
	}
	return r, nil
}

// pgVersion is the major version of the PostgreSQL programs found.
func pgVersion() string {
	bin, _ := pgtest.Bin()
	return filepath.Base(filepath.Dir(bin))
}
