package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// The static comparison is also measured with Debian's wrk, a C load
// generator that reads answers without allocating. This program's own
// client (load) is Go's http.Client, which spends a few microseconds of
// the same two cores on each header of an answer it parses: serve sends
// the site's security headers (about 15 headers, 1 KB) and the minimal
// nginx six, so with it the req/s ratio weighs the client's work on
// serve's headers too (with that client nginx too answers fewer requests
// a second when it sends serve's headers). wrk's ratio is the
// servers' own; the target is judged on it, and both are printed.

// wrkReport is what wrkScript's done hook prints: counts, microseconds.
const wrkScript = `done = function(s, latency, requests)
  local e = s.errors
  io.write(string.format('{"requests":%d,"us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50":%d,"p99":%d,"max":%d}\n',
    s.requests, s.duration, s.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
`

type wrkReport struct {
	Requests, Us, Bytes                   int64
	Connect, Read, Write, Status, Timeout int64
	P50, P99, Max                         float64
}

// wrkLoad runs wrk (2 threads, clients connections, for d rounded up to
// whole seconds) on url with the headers a browser's request has, and
// reports it as a load run of server's.
func wrkLoad(tmp, name, url, cookie string, clients int, d time.Duration, server int) (loadResult, error) {
	wrk, err := needTool("wrk", "wrk")
	if err != nil {
		return loadResult{}, err
	}
	script := filepath.Join(tmp, "wrk-report.lua")
	if err := os.WriteFile(script, []byte(wrkScript), 0o644); err != nil {
		return loadResult{}, err
	}
	seconds := int(math.Ceil(d.Seconds()))
	cpu0 := processCPU(server)
	out, err := exec.Command(wrk, "-t2", fmt.Sprintf("-c%d", clients), fmt.Sprintf("-d%ds", seconds), "-s", script,
		"-H", "Accept-Encoding: gzip", "-H", "Cookie: "+cookie, url).CombinedOutput()
	cpu := processCPU(server) - cpu0
	if err != nil {
		return loadResult{}, fmt.Errorf("wrk %s: %v\n%s", url, err, out)
	}
	var rep wrkReport
	line := out[bytes.LastIndexByte(bytes.TrimRight(out, "\n"), '\n')+1:]
	if err := json.Unmarshal(line, &rep); err != nil {
		return loadResult{}, fmt.Errorf("wrk %s: no report from its done hook (%v):\n%s", url, err, out)
	}
	r := loadResult{Name: name, Workers: clients, Requests: int(rep.Requests), Seconds: round(float64(rep.Us)/1e6, 2),
		Failed: int(rep.Connect + rep.Read + rep.Write + rep.Timeout),
		Status: map[int]int{}}
	if ok := rep.Requests - rep.Status; ok > 0 {
		r.Status[200] = int(ok) // 2xx or 3xx: the expected status is checked by the Go client's runs
	}
	if rep.Status > 0 {
		r.Status[0] = int(rep.Status) // some other status
	}
	if rep.Requests > 0 && rep.Us > 0 {
		r.PerSecond = round(float64(rep.Requests)/(float64(rep.Us)/1e6), 0)
		r.P50ms, r.P99ms, r.MaxMs = round(rep.P50/1000, 2), round(rep.P99/1000, 2), round(rep.Max/1000, 2)
		r.BodyBytes = int(rep.Bytes / rep.Requests) // with the headers: wrk counts all it reads
		r.ServerCPUus = round(float64(cpu.Microseconds())/float64(rep.Requests), 1)
	}
	return r, nil
}
