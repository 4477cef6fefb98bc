package e2e

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Lighthouse targets, on Lighthouse's mobile defaults: simulated
// slow 4G and a 4x slower CPU.
const (
	minPerformance = 0.98
	minOther       = 1.0 // accessibility, best practices, SEO
)

// lighthouseRoutes are the audited pages, each in all three languages.
var lighthouseRoutes = []string{"/", "/faq", "/registration", "/news-feed", "/donate"}

// notFoundAudited is the path under which the not-found page is audited.
// Lighthouse refuses a page answered with 404 (it reports an error
// instead of scores), and the not-found page must answer 404 (SPEC §2).
// So the audit goes through a test-only proxy that passes everything to
// the real server unchanged except the status line of these paths, which
// it turns from 404 into 200: the audited bytes, headers and scripts are
// those of the real not-found page, and the console sees no failed
// request.
const notFoundAudited = "/lighthouse-not-found"

// lighthouseChromium is the browser Lighthouse audits in: the desktop
// Chromium in its headless mode, as Lighthouse's own command line runs
// it. (In chromium-headless-shell, the browser the other tests drive,
// the audits take longer, waiting on the browser.)
const lighthouseChromium = "/usr/bin/chromium"

type lighthouseResult struct {
	URL            string             `json:"url"`
	RuntimeError   string             `json:"runtimeError"`
	Scores         map[string]float64 `json:"scores"`
	Metrics        map[string]float64 `json:"metrics"`
	BenchmarkIndex float64            `json:"benchmarkIndex"`
	Failing        []struct {
		ID     string   `json:"id"`
		Title  string   `json:"title"`
		Score  float64  `json:"score"`
		Weight float64  `json:"weight"`
		Value  string   `json:"value"`
		Items  []string `json:"items"`
	} `json:"failing"`
}

// problems says why a result misses the targets ("" when it meets them).
func (r lighthouseResult) problems() string {
	if r.RuntimeError != "" {
		return "Lighthouse could not audit the page: " + r.RuntimeError
	}
	var out []string
	for _, c := range []string{"performance", "accessibility", "best-practices", "seo"} {
		score, ok := r.Scores[c]
		want := minOther
		if c == "performance" {
			want = minPerformance
		}
		if !ok || score < want {
			out = append(out, fmt.Sprintf("%s %.2f < %.2f", c, score, want))
		}
	}
	if len(out) == 0 {
		return ""
	}
	for _, f := range r.Failing {
		if f.Weight > 0 || f.Score == 0 {
			out = append(out, fmt.Sprintf("  audit %s (%s): score %.2f %s %s", f.ID, f.Title, f.Score, f.Value, strings.Join(f.Items, " | ")))
		}
	}
	return strings.Join(out, "\n")
}

// TestLighthouse audits Home, FAQ, Registration, News feed, Donate and
// the not-found page in en, hi and ma (18 runs) and fails below
// performance 0.98 or below 1 in accessibility, best practices and SEO,
// printing the scores and the audits that lost points. Performance is
// measured, and one audit of it varies (Lighthouse's own advice, in its
// docs/variability.md, is to judge the median of five runs): a page
// that misses it is audited four times more and judged by the median of
// its five runs, so it passes only if at least three of them meet the
// target.
func TestLighthouse(t *testing.T) {
	if _, err := os.Stat(lighthouseChromium); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing and CI is set", lighthouseChromium)
		}
		t.Skip(lighthouseChromium + " is missing")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is missing: Lighthouse runs on Node.js (see README.md, Set up on a fresh machine)")
	}
	if _, err := os.Stat(filepath.Join(root, "node_modules", "lighthouse")); err != nil {
		t.Fatal("node_modules/lighthouse is missing: run npm ci")
	}

	proxy := notFoundProxy(t)
	var urls []string
	for _, prefix := range []string{"", "/hi", "/ma"} {
		for _, r := range lighthouseRoutes {
			if r == "/" && prefix != "" {
				urls = append(urls, baseURL+prefix)
			} else {
				urls = append(urls, baseURL+prefix+r)
			}
		}
		urls = append(urls, proxy+prefix+notFoundAudited)
	}

	port := startDebuggableChromium(t)
	results := runLighthouse(t, node, port, urls)
	var again []string
	for _, r := range results {
		if r.problems() != "" && (r.RuntimeError != "" || onlyPerformanceMissed(r)) {
			again = append(again, r.URL)
		}
	}
	if len(again) > 0 {
		retried := runLighthouse(t, node, port, slices.Concat(again, again, again, again))
		for i, r := range results {
			runs := []lighthouseResult{r}
			for _, other := range retried {
				if other.URL == r.URL {
					runs = append(runs, other)
				}
			}
			if len(runs) == 1 {
				continue
			}
			// A run without scores (Lighthouse's runtime error) counts as
			// the lowest.
			slices.SortStableFunc(runs, func(a, b lighthouseResult) int { return cmp.Compare(a.Scores["performance"], b.Scores["performance"]) })
			var each []string
			for _, x := range runs {
				if x.RuntimeError != "" {
					each = append(each, "no scores ("+x.RuntimeError+")")
				} else {
					each = append(each, fmt.Sprintf("%.2f", x.Scores["performance"]))
				}
			}
			median := runs[len(runs)/2]
			t.Logf("%s audited %d times: performance %s; judged by the median, %.2f", displayURL(r.URL, proxy), len(runs), strings.Join(each, ", "), median.Scores["performance"])
			results[i] = median
		}
	}

	var table strings.Builder
	fmt.Fprintf(&table, "%-44s %5s %5s %5s %5s  %6s %6s %5s %5s\n", "page", "perf", "a11y", "bp", "seo", "FCP ms", "LCP ms", "TBT", "CLS")
	for _, r := range results {
		fmt.Fprintf(&table, "%-44s %5.2f %5.2f %5.2f %5.2f  %6.0f %6.0f %5.0f %5.3f\n", displayURL(r.URL, proxy),
			r.Scores["performance"], r.Scores["accessibility"], r.Scores["best-practices"], r.Scores["seo"],
			r.Metrics["fcp"], r.Metrics["lcp"], r.Metrics["tbt"], r.Metrics["cls"])
	}
	t.Logf("Lighthouse %d pages (mobile, simulated slow 4G, 4x CPU; benchmark index %.0f):\n%s", len(results), results[0].BenchmarkIndex, table.String())
	for _, r := range results {
		if why := r.problems(); why != "" {
			t.Errorf("%s misses its Lighthouse targets:\n%s", displayURL(r.URL, proxy), why)
		}
	}
}

// onlyPerformanceMissed: the measured category missed, the audited ones
// (accessibility, best practices, SEO, which do not vary) did not.
func onlyPerformanceMissed(r lighthouseResult) bool {
	for _, c := range []string{"accessibility", "best-practices", "seo"} {
		if r.Scores[c] < minOther {
			return false
		}
	}
	return r.Scores["performance"] < minPerformance
}

func displayURL(u, proxy string) string {
	if rest, ok := strings.CutPrefix(u, proxy); ok {
		return rest + " (not found)"
	}
	return strings.TrimPrefix(u, baseURL)
}

// notFoundProxy starts the test-only proxy of notFoundAudited and returns
// its base URL.
func notFoundProxy(t *testing.T) string {
	t.Helper()
	target, _ := url.Parse(baseURL)
	audited := regexp.MustCompile(`^(/hi|/ma)?` + notFoundAudited + `$`)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(resp *http.Response) error {
		if audited.MatchString(resp.Request.URL.Path) {
			if resp.StatusCode != http.StatusNotFound {
				return fmt.Errorf("%s answered %d, want the not-found page's 404", resp.Request.URL.Path, resp.StatusCode)
			}
			resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
		}
		return nil
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv.URL
}

// startDebuggableChromium starts a headless Chromium with a DevTools port
// for Lighthouse to drive and returns the port; the browser is stopped
// when the test ends.
//
// Chromium keeps its spare renderer, one started in advance for the next
// navigation, so the audited page commits in a renderer that existed
// before the trace began. A page that commits in a renderer started for
// it during the trace often makes the trace wait 5 s to end ("Timeout
// while waiting for ACKs for tracing session" in Chromium's log; a plain
// CDP trace of a navigation that needs a new renderer, to another site or
// to a page with Cross-Origin-Opener-Policy as every page here, waits the
// same). With the spare, a trace rarely lacks the page's navigationStart
// and Lighthouse gives no scores (NO_NAVSTART; the spare renderer's only
// navigationStart has no page URL). Such a run counts as the lowest of
// the page's three (TestLighthouse), so the page fails only when a second
// of its runs fails too.
func startDebuggableChromium(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(lighthouseChromium, "--headless=new", "--no-sandbox", "--remote-debugging-port=0",
		"--user-data-dir="+t.TempDir(), "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
		"--disable-quic", "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		listening := regexp.MustCompile(`DevTools listening on ws://127\.0\.0\.1:(\d+)/`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case port := <-found:
		return port
	case <-time.After(30 * time.Second):
		t.Fatal("Chromium did not report its DevTools port within 30 s")
		return ""
	}
}

var loopbackOrigin = regexp.MustCompile(`http://127\.0\.0\.1:\d+`)

// runLighthouse audits the URLs one after the other with e2e/lighthouse.mjs.
func runLighthouse(t *testing.T, node, port string, urls []string) []lighthouseResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(len(urls))*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join("e2e", "lighthouse.mjs"), "--port", port}, urls...)...)
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	progress, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("running Lighthouse: %v", err)
	}
	// Each page's scores are logged as they come (go test -v shows them
	// at once), everything else is kept for an error.
	sc := bufio.NewScanner(progress)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "audited ") {
			t.Log(loopbackOrigin.ReplaceAllString(sc.Text(), "")) // the server's or the not-found proxy's
		} else {
			stderr.WriteString(sc.Text() + "\n")
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("running Lighthouse: %v\n%s", err, stderr.String())
	}
	var results []lighthouseResult
	if err := json.Unmarshal(stdout.Bytes(), &results); err != nil {
		t.Fatalf("reading Lighthouse's results: %v\n%s", err, stdout.String())
	}
	if len(results) != len(urls) {
		t.Fatalf("Lighthouse returned %d results for %d pages", len(results), len(urls))
	}
	for i, r := range results {
		if r.URL != urls[i] {
			t.Fatalf("result %d is for %s, want %s", i, r.URL, urls[i])
		}
	}
	return results
}
