package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The memory section attacks `freightsite serve` as a client facing it
// on the internet could, with connections that cost it memory rather
// than work: some send header blocks far past its cap, over and over;
// others pipeline requests for the site's largest script and never read
// the answers. It samples the server's resident memory (VmRSS) under the
// attack, closes every connection and samples it as it falls back. The
// connections come from ten loopback addresses, each within the cap on
// connections per client, so every one of them is served.

// memoryAttack is the attack's size.
type memoryAttack struct {
	headerConns, pipelineConns int
	hold                       time.Duration // how long the attack lasts
	after                      time.Duration // how long the memory is watched after it
}

var (
	fullAttack  = memoryAttack{headerConns: 300, pipelineConns: 150, hold: 10 * time.Second, after: 30 * time.Second}
	quickAttack = memoryAttack{headerConns: 30, pipelineConns: 15, hold: time.Second, after: 2 * time.Second}
)

// The targets: what serve may take under the attack, and what it must
// be back under within memoryAttack.after of its end.
const (
	underAttackMB = 250
	afterAttackMB = 120
)

// Attack traffic: header blocks of a megabyte (net/http's own cap, were
// serve to leave it), and pipelines of this many requests.
const (
	oversizedBlock = 1 << 20
	pipelined      = 100
)

// memoryFigures are what the memory section measured, in MB of VmRSS.
type memoryFigures struct {
	HeaderConns   int     `json:"headerConns"`
	PipelineConns int     `json:"pipelineConns"`
	Script        string  `json:"script"` // the pipelined URL path
	ScriptBytes   int     `json:"scriptBytes"`
	AtRestMB      float64 `json:"atRestMB"`
	PeakMB        float64 `json:"peakUnderAttackMB"`
	AtCloseMB     float64 `json:"atCloseMB"`
	// BackUnderS is how long after the close serve was back under
	// afterAttackMB (-1: not within AfterS).
	BackUnderS float64 `json:"backUnderSeconds"`
	AfterMB    float64 `json:"afterMB"` // at AfterS
	AfterS     float64 `json:"afterSeconds"`
	Refused431 int64   `json:"refused431"`             // header blocks answered 431
	Unanswered int64   `json:"unansweredHeaderBlocks"` // closed with no answer read
}

func (m memoryFigures) targets() []target {
	return []target{
		{fmt.Sprintf("serve under %d oversized-header and %d pipelining connections < %d MB", m.HeaderConns, m.PipelineConns, underAttackMB), m.PeakMB < underAttackMB, fmt.Sprintf("peak %.0f MB (at rest %.0f MB)", m.PeakMB, m.AtRestMB)},
		{fmt.Sprintf("serve back < %d MB within %.0f s after they close", afterAttackMB, m.AfterS), m.BackUnderS >= 0, m.backText()},
	}
}

func (m memoryFigures) backText() string {
	if m.BackUnderS < 0 {
		return fmt.Sprintf("%.0f MB at close, still %.0f MB after %.0f s", m.AtCloseMB, m.AfterMB, m.AfterS)
	}
	return fmt.Sprintf("%.0f MB at close, under %d MB after %.1f s, %.0f MB after %.0f s", m.AtCloseMB, afterAttackMB, m.BackUnderS, m.AfterMB, m.AfterS)
}

// measureMemory starts serve on dist and a database of its own, attacks
// it and reports its memory.
func measureMemory(out io.Writer, bin, tmp string, sz size) (memoryFigures, error) {
	a := fullAttack
	if sz.quick {
		a = quickAttack
	}
	dist := filepath.Join(tmp, "dist")
	script, scriptBytes, err := largestScript(dist)
	if err != nil {
		return memoryFigures{}, err
	}
	f := memoryFigures{HeaderConns: a.headerConns, PipelineConns: a.pipelineConns, Script: script, ScriptBytes: scriptBytes}
	fmt.Fprintf(out, "== memory: freightsite serve under %d connections sending %d KB header blocks (over and over) and %d pipelining %d GETs of %s (%d KB) without reading, for %s, from 10 loopback addresses; VmRSS sampled, then for %s after they close (targets %d MB under the attack, %d MB after)\n",
		a.headerConns, oversizedBlock>>10, a.pipelineConns, pipelined, script, scriptBytes>>10, a.hold, a.after, underAttackMB, afterAttackMB)
	addr := freeAddr()
	serve, err := start(filepath.Join(tmp, "serve-memory.log"), bin, "serve", "--addr", addr, "--dist", dist, "--db", filepath.Join(tmp, "memory.db"))
	if err != nil {
		return f, err
	}
	defer stop(serve)
	base := "http://" + addr
	if err := waitUp(base + "/healthz"); err != nil {
		return f, err
	}
	for _, p := range []string{"/", "/home", script} { // what a visit reads
		if resp, err := http.Get(base + p); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	pid := serve.Process.Pid
	if f.AtRestMB, err = rssMB(pid); err != nil {
		return f, err
	}

	stopAttack := make(chan struct{})
	var wg sync.WaitGroup
	var refused, unanswered atomic.Int64
	for i := range a.headerConns {
		wg.Go(func() { sendOversizedHeaders(addr, fromAddr(i), stopAttack, &refused, &unanswered) })
	}
	var mu sync.Mutex
	var pipes []net.Conn
	for i := range a.pipelineConns {
		c, err := dialFrom(addr, fromAddr(a.headerConns+i))
		if err != nil {
			close(stopAttack)
			wg.Wait()
			return f, fmt.Errorf("opening pipelining connection %d: %w", i+1, err)
		}
		mu.Lock()
		pipes = append(pipes, c)
		mu.Unlock()
		wg.Go(func() { pipeline(c, script) })
	}
	end := time.Now().Add(a.hold)
	for time.Now().Before(end) {
		if mb, err := rssMB(pid); err == nil {
			f.PeakMB = max(f.PeakMB, mb)
		}
		time.Sleep(100 * time.Millisecond)
	}
	close(stopAttack)
	mu.Lock()
	for _, c := range pipes {
		c.Close()
	}
	mu.Unlock()
	wg.Wait()
	closed := time.Now()
	f.Refused431, f.Unanswered = refused.Load(), unanswered.Load()
	if f.AtCloseMB, err = rssMB(pid); err != nil {
		return f, err
	}
	f.BackUnderS = -1
	for {
		mb, err := rssMB(pid)
		if err != nil {
			return f, err
		}
		since := time.Since(closed)
		if f.BackUnderS < 0 && mb < afterAttackMB {
			f.BackUnderS = round(since.Seconds(), 1)
		}
		if since >= a.after {
			f.AfterMB, f.AfterS = mb, round(since.Seconds(), 0)
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	fmt.Fprintf(out, "at rest %.0f MB; under the attack peak %.0f MB (%d header blocks answered 431, %d cut off unanswered: the server closes with the block still coming); %s\n\n",
		f.AtRestMB, f.PeakMB, f.Refused431, f.Unanswered, f.backText())
	if f.Refused431 == 0 {
		return f, fmt.Errorf("no oversized header block was answered 431: the attack measured something else")
	}
	if err := stop(serve); err != nil {
		return f, fmt.Errorf("freightsite serve did not stop cleanly on SIGTERM after the attack: %w", err)
	}
	return f, nil
}

// largestScript is the URL path and size of the largest script of the
// build.
func largestScript(dist string) (string, int, error) {
	files, err := filepath.Glob(filepath.Join(dist, "assets", "build", "*.js"))
	if err != nil || len(files) == 0 {
		return "", 0, fmt.Errorf("no scripts in %s/assets/build: %v", dist, err)
	}
	best, size := "", int64(-1)
	for _, f := range files {
		if info, err := os.Stat(f); err == nil && info.Size() > size {
			best, size = f, info.Size()
		}
	}
	return "/assets/build/" + filepath.Base(best), int(size), nil
}

// fromAddr spreads connections over ten loopback addresses.
func fromAddr(i int) string { return "127.0.0." + strconv.Itoa(2+i%10) }

func dialFrom(addr, from string) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	return d.Dial("tcp", addr)
}

// sendOversizedHeaders sends oversized header blocks on one connection
// after another until stop, counting the answers: 431, or none.
func sendOversizedHeaders(addr, from string, stop <-chan struct{}, refused, unanswered *atomic.Int64) {
	line := "X-Padding: " + strings.Repeat("a", 4084) + "\r\n" // 4 KB a line
	for {
		select {
		case <-stop:
			return
		default:
		}
		c, err := dialFrom(addr, from)
		if err != nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		// The server answers past its cap and closes: writing goes on
		// until the connection fails, as an attacker's would.
		go func() {
			w := bufio.NewWriterSize(c, 64<<10)
			w.WriteString("GET /home HTTP/1.1\r\nHost: localhost\r\n")
			for n := 0; n < oversizedBlock; n += len(line) {
				if _, err := w.WriteString(line); err != nil {
					return
				}
			}
			w.WriteString("\r\n")
			w.Flush()
		}()
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		switch {
		case err != nil:
			unanswered.Add(1)
		case resp.StatusCode == http.StatusRequestHeaderFieldsTooLarge:
			refused.Add(1)
		}
		c.Close()
	}
}

// pipeline sends pipelined GETs of path on c and reads nothing.
func pipeline(c net.Conn, path string) {
	req := "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n"
	io.WriteString(c, strings.Repeat(req, pipelined))
}

// rssMB is a process's resident memory (VmRSS in /proc/PID/status).
func rssMB(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err != nil {
				return 0, fmt.Errorf("reading VmRSS %q: %w", line, err)
			}
			return round(kb/1024, 1), nil
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
