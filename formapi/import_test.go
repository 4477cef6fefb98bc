package formapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"freightsite/receivables"
)

// postFile posts body as the multipart field (named name) with the XSRF
// header, streaming it through a pipe so the client never holds the whole
// file either.
func postFile(t *testing.T, a *testAPI, field, name string, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	return postFileTo(t, a, http.Header{}, "/api/import/validate", field, name, body)
}

// postFileTo is postFile to another path (the fix), or with more headers
// (X-Forwarded-For).
func postFileTo(t *testing.T, a *testAPI, header http.Header, path, field, name string, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		_ = mw.WriteField("note", "a field before the file is skipped")
		part, err := mw.CreateFormFile(field, name)
		if err == nil {
			_, err = io.Copy(part, body)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	header = header.Clone()
	header.Set(xsrfHeader, a.token())
	resp := a.do(http.MethodPost, path, mw.FormDataContentType(), pr, header)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func importServer(t *testing.T) *testAPI { return newTestAPI(t, unlimited()) }

func TestImportValidate(t *testing.T) {
	api := importServer(t)
	t.Run("a valid file", func(t *testing.T) {
		resp, body := postFile(t, api, "file", "good.csv", bytes.NewReader(receivables.Sample()))
		var rep receivables.Report
		if err := json.Unmarshal(body, &rep); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%d %v: %s", resp.StatusCode, err, body)
		}
		if !rep.Valid || rep.Rows != 3 || rep.File != "good.csv" || rep.Errors == nil {
			t.Errorf("%s", body)
		}
	})
	t.Run("an invalid file lists its errors", func(t *testing.T) {
		file := strings.Replace(string(receivables.Sample()), "9876543210", "98765", 1) + "too,few\r\n"
		resp, body := postFile(t, api, "file", "march.csv", strings.NewReader(file))
		var rep receivables.Report
		if err := json.Unmarshal(body, &rep); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%d %v: %s", resp.StatusCode, err, body)
		}
		if rep.Valid || rep.ErrorCount != 2 || rep.Errors[0].ColumnID != "phone" || rep.Errors[0].Line != 2 ||
			rep.Errors[1].Rule != receivables.RuleColumns || rep.Errors[1].Line != 5 {
			t.Errorf("%s", body)
		}
	})
	t.Run("not CSV stops early and still answers", func(t *testing.T) {
		workbook := io.MultiReader(strings.NewReader("PK\x03\x04"), io.LimitReader(zeros{}, 5<<20))
		resp, body := postFile(t, api, "file", "book.xlsx", workbook)
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"rule":"workbook"`) || !strings.Contains(string(body), `"unusable":"this is an Excel workbook`) {
			t.Errorf("%d: %s", resp.StatusCode, body)
		}
	})
	t.Run("over 50 MB", func(t *testing.T) {
		big := io.MultiReader(bytes.NewReader(receivables.Sample()), &rows{n: 400_000})
		resp, body := postFile(t, api, "file", "big.csv", big)
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "larger than 50 MB") || !strings.Contains(string(body), "each starting with the heading line") {
			t.Errorf("%d: %s", resp.StatusCode, body)
		}
	})
	t.Run("a semicolon file: the cause, then the rows' errors with Excel cells and what to type", func(t *testing.T) {
		file := strings.Replace(strings.ReplaceAll(string(receivables.Sample()), ",", ";"), ";125000.00;", ";1,25,000.00;", 1)
		resp, body := postFile(t, api, "file", "march.csv", strings.NewReader(file))
		var rep receivables.Report
		if err := json.Unmarshal(body, &rep); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%d %v: %s", resp.StatusCode, err, body)
		}
		if len(rep.Causes) != 1 || rep.Causes[0].Rule != receivables.RuleSeparator || rep.ErrorCount != 1 {
			t.Fatalf("%s", body)
		}
		if e := rep.Errors[0]; e.Row != 2 || e.ColumnLetter != "S" || e.Rule != receivables.RuleThousands || e.Suggestion != "125000.00" {
			t.Errorf("%+v", e)
		}
	})
	t.Run("no file field", func(t *testing.T) {
		resp, body := postFile(t, api, "attachment", "x.csv", strings.NewReader("a"))
		if resp.StatusCode != 400 || !strings.Contains(string(body), `field \"file\"`) {
			t.Errorf("%d: %s", resp.StatusCode, body)
		}
	})
	t.Run("not multipart", func(t *testing.T) {
		resp := api.post("/api/import/validate", "text/csv", receivables.Sample())
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("status %d", resp.StatusCode)
		}
	})
	t.Run("no anti-forgery token", func(t *testing.T) {
		resp := api.do(http.MethodPost, "/api/import/validate", "text/csv", bytes.NewReader(receivables.Sample()), nil)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("status %d, want 403", resp.StatusCode)
		}
	})
	t.Run("only POST", func(t *testing.T) {
		resp := api.get("/api/import/validate")
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("GET: status %d", resp.StatusCode)
		}
	})
}

// TestImportFix: the corrected copy comes back as a CSV download named
// after the file, with the number of changes; a file with nothing to
// correct comes back as it was sent, one that cannot be corrected at all
// gets its report with 422.
func TestImportFix(t *testing.T) {
	api := importServer(t)
	t.Run("corrected", func(t *testing.T) {
		file := strings.Replace(strings.ReplaceAll(string(receivables.Sample()), ",", ";"), ";125000.00;", ";125.000,00;", 1)
		resp, body := postFileTo(t, api, http.Header{}, "/api/import/fix", "file", "march.csv", strings.NewReader(file))
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" || resp.Header.Get("X-Changes") != "2" ||
			resp.Header.Get("Content-Disposition") != `attachment; filename=march-corrected.csv` {
			t.Fatalf("%d %v: %s", resp.StatusCode, resp.Header, body)
		}
		rep, err := receivables.Validate(bytes.NewReader(body), receivables.Options{MaxErrors: 10})
		if err != nil || !rep.Valid || rep.Rows != 3 || !bytes.Contains(body, []byte(",125000.00,")) {
			t.Errorf("the copy is not valid: %+v\n%s", rep, body)
		}
	})
	t.Run("nothing to correct", func(t *testing.T) {
		resp, body := postFileTo(t, api, http.Header{}, "/api/import/fix", "file", "सूची.csv", bytes.NewReader(receivables.Sample()))
		if resp.StatusCode != 200 || resp.Header.Get("X-Changes") != "0" || !bytes.Equal(body, receivables.Sample()) ||
			resp.Header.Get("Content-Disposition") != `attachment; filename*=utf-8''%E0%A4%B8%E0%A5%82%E0%A4%9A%E0%A5%80-corrected.csv` {
			t.Errorf("%d %v", resp.StatusCode, resp.Header)
		}
	})
	t.Run("not CSV", func(t *testing.T) {
		workbook := io.MultiReader(strings.NewReader("PK\x03\x04"), io.LimitReader(zeros{}, 5<<20))
		resp, body := postFileTo(t, api, http.Header{}, "/api/import/fix", "file", "book.xlsx", workbook)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), `"unusable":"this is an Excel workbook`) {
			t.Errorf("%d: %s", resp.StatusCode, body)
		}
	})
	t.Run("over 50 MB", func(t *testing.T) {
		big := io.MultiReader(bytes.NewReader(receivables.Sample()), &rows{n: 400_000})
		resp, body := postFileTo(t, api, http.Header{}, "/api/import/fix", "file", "big.csv", big)
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "larger than 50 MB") {
			t.Errorf("%d: %s", resp.StatusCode, body)
		}
	})
}

// TestImportValidateStreams: a 43 MB upload is checked without holding
// it: the heap grows by far less than the file.
func TestImportValidateStreams(t *testing.T) {
	api := importServer(t)
	file := io.MultiReader(bytes.NewReader(receivables.Sample()), &rows{n: 250_000})
	var size countingReader
	size.r = file
	peak := heapPeak(func() {
		resp, body := postFile(t, api, "file", "big.csv", &size)
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"valid":true`) {
			t.Fatalf("%d: %.300s", resp.StatusCode, body)
		}
	})
	if size.n < 40e6 {
		t.Fatalf("uploaded only %d bytes", size.n)
	}
	if peak > 16<<20 {
		t.Errorf("heap grew by %d MB while checking a %d MB upload", peak>>20, size.n>>20)
	}
	t.Logf("heap grew by %.1f MB for a %.0f MB upload", float64(peak)/(1<<20), float64(size.n)/1e6)
}

// rows yields n valid data rows, made as they are read.
type rows struct {
	n, i int
	buf  bytes.Buffer
}

func (r *rows) Read(p []byte) (int, error) {
	for r.buf.Len() < len(p) && r.i < r.n {
		fmt.Fprintf(&r.buf, "CUST-%07d,Sharma Roadlines Pvt Ltd,123456,9876543210,,\"Plot 14, MIDC Industrial Area\",Taloja,Navi Mumbai,MH,410208,IN,Accounts Payable,,,,,,,%d.50,0,0,12000,0,-1500.00,7300.25\r\n", r.i, r.i%99999)
		r.i++
	}
	if r.buf.Len() == 0 {
		return 0, io.EOF
	}
	return r.buf.Read(p)
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// heapPeak runs f and returns how far the live heap rose above where it
// started, sampled every millisecond.
func heapPeak(f func()) uint64 {
	// Garbage is collected promptly while f runs, so the peak is what f
	// holds, not how far the collector's pacing (set by whatever earlier
	// tests left live) lets garbage pile up.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > base && v-base > peak.Load() {
				peak.Store(v - base)
			}
		}
	}()
	f()
	close(done)
	return peak.Load()
}

func withFileChecks(c FileChecks) apiOption { return func(cfg *Config) { cfg.FileChecks = c } }

// TestImportChecksPerClient: a client (an IPv4 address, an IPv6 /64)
// checks at most PerClient files at once, however slowly they arrive;
// one more is refused at once with 429, Retry-After and the API's JSON,
// without reading its body, while other clients are checked as usual;
// once a check ends, the client may start another.
func TestImportChecksPerClient(t *testing.T) {
	a := newTestAPI(t, unlimited(), withTrustedProxy(), withFileChecks(FileChecks{PerClient: 1}))
	from := func(addr string) http.Header { return http.Header{"X-Forwarded-For": {addr}} }
	for _, c := range []struct {
		name, first, same, other string
	}{
		{"IPv4", "203.0.113.7", "203.0.113.7", "203.0.113.8"},
		{"IPv6 in one /64", "2001:db8:1:2::1", "2001:db8:1:2:ffff::99", "2001:db8:1:3::1"},
	} {
		// The first check sends its head and half its file over its own
		// connection, then waits. A try of the second that came in just
		// before it has it refused: then it starts again.
		file, _ := io.ReadAll(io.MultiReader(bytes.NewReader(receivables.Sample()), &rows{n: 200}))
		body := "--XYZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"slow.csv\"\r\n\r\n" + string(file) + "\r\n--XYZ--\r\n"
		token := a.token()
		var first net.Conn
		var firstAnswer *bufio.Reader
		startFirst := func() {
			var err error
			if first, err = net.Dial("tcp", a.srv.Listener.Addr().String()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { first.Close() })
			firstAnswer = bufio.NewReader(first)
			fmt.Fprintf(first, "POST /api/import/validate HTTP/1.1\r\nHost: x\r\nCookie: %s=%s\r\n%s: %s\r\nX-Forwarded-For: %s\r\nContent-Type: multipart/form-data; boundary=XYZ\r\nContent-Length: %d\r\n\r\n%s",
				xsrfCookie, token, xsrfHeader, token, c.first, len(body), body[:len(body)/2])
		}
		firstRefused := func() bool {
			first.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
			defer first.SetReadDeadline(time.Time{})
			_, err := firstAnswer.Peek(1)
			return err == nil
		}
		startFirst()
		refused := false
		for deadline := time.Now().Add(10 * time.Second); !refused && time.Now().Before(deadline); {
			resp, body := postFileTo(t, a, from(c.same), "/api/import/validate", "file", "again.csv", bytes.NewReader(receivables.Sample()))
			switch resp.StatusCode {
			case http.StatusTooManyRequests:
				refused = true
				if resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), `"message":"api.errors.tooManyRequests"`) {
					t.Errorf("%s: the refusal: %v %s", c.name, resp.Header, body)
				}
			case http.StatusOK: // checked before the first began, or in its place
				if firstRefused() {
					first.Close()
					startFirst()
				}
			default:
				t.Fatalf("%s: a second check from the same client: %d %s", c.name, resp.StatusCode, body)
			}
		}
		if !refused {
			t.Fatalf("%s: a second check from the same client was never refused", c.name)
		}
		if resp, body := postFileTo(t, a, from(c.other), "/api/import/validate", "file", "other.csv", bytes.NewReader(receivables.Sample())); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"valid":true`) {
			t.Errorf("%s: another client's check while the first waits: %d %s", c.name, resp.StatusCode, body)
		}
		first.Write([]byte(body[len(body)/2:]))
		resp, err := http.ReadResponse(firstAnswer, nil)
		if err != nil {
			t.Fatalf("%s: the slow check got no answer: %v", c.name, err)
		}
		if answer := bodyText(resp); !strings.Contains(answer, `"valid":true`) {
			t.Errorf("%s: the slow check: %s", c.name, answer)
		}
		if resp, body := postFileTo(t, a, from(c.same), "/api/import/validate", "file", "again.csv", bytes.NewReader(receivables.Sample())); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: a check after the first ended: %d %s", c.name, resp.StatusCode, body)
		}
	}
}

// TestCheckTurns: a check holds a turn only while it computes: it gives
// it up while it waits for its upload, so a check that waits for bytes
// holds no one up; a check that finds no turn within Wait is answered
// 503 with the API's busy message; one whose request ends while it waits
// stops waiting.
func TestCheckTurns(t *testing.T) {
	slots := newCheckSlots(FileChecks{AtOnce: 1, PerClient: 1, Wait: 150 * time.Millisecond})
	ctx := context.Background()
	upload, sender := io.Pipe()
	first, err := slots.take(ctx, upload)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = slots.take(ctx, strings.NewReader("x"))
	var he *httpError
	if !errors.As(err, &he) || he.status != http.StatusServiceUnavailable || he.message != "api.errors.busy" || time.Since(start) < 150*time.Millisecond {
		t.Fatalf("a check with every turn taken: %v after %v, want a 503 after 150 ms", err, time.Since(start))
	}
	read := make(chan string)
	go func() {
		b := make([]byte, 10)
		n, _ := first.Read(b) // waits for its upload: the turn is free meanwhile
		read <- string(b[:n])
	}()
	var second *turnReader
	for deadline := time.Now().Add(5 * time.Second); second == nil && time.Now().Before(deadline); {
		if second, err = slots.take(ctx, strings.NewReader("x")); err != nil && !errors.Is(err, errChecksBusy) {
			t.Fatal(err)
		}
	}
	if second == nil {
		t.Fatal("a check found no turn while the only other one waited for its upload")
	}
	go sender.Write([]byte("Account"))
	select {
	case got := <-read:
		t.Fatalf("the first check computed (read %q) while the second held the only turn", got)
	case <-time.After(100 * time.Millisecond):
	}
	second.done()
	if got := <-read; got != "Account" {
		t.Errorf("the first check read %q", got)
	}
	gone, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if _, err := slots.take(gone, strings.NewReader("x")); !errors.As(err, &he) || he.status != http.StatusBadRequest {
		t.Errorf("a check whose request ended while it waited: %v", err)
	}
	first.done()
	if third, err := slots.take(ctx, strings.NewReader("x")); err != nil {
		t.Errorf("no turn once every check is done: %v", err)
	} else {
		third.done()
	}
}

// TestImportChecksShareTheProcessors: costly checks from several clients
// at once (short rows with a valid one now and then, so every row is
// read) are all answered, with their reports, while the process computes
// on no more processors than AtOnce allows (user CPU time over the wall
// time they take).
func TestImportChecksShareTheProcessors(t *testing.T) {
	a := newTestAPI(t, unlimited(), withTrustedProxy(), withFileChecks(FileChecks{AtOnce: 1}))
	var file bytes.Buffer
	file.Write(receivables.Sample())
	valid := strings.SplitN(string(receivables.Sample()), "\r\n", 3)[1]
	for file.Len() < 8<<20 {
		file.WriteString(strings.Repeat("1\r\n", 900) + valid + "\r\n")
	}
	const checks = 4
	before, start := userCPU(), time.Now()
	var wg sync.WaitGroup
	for i := range checks {
		wg.Go(func() {
			resp, body := postFileTo(t, a, http.Header{"X-Forwarded-For": {fmt.Sprintf("198.51.100.%d", i+1)}}, "/api/import/validate", "file", "rows.csv", bytes.NewReader(file.Bytes()))
			var rep receivables.Report
			if err := json.Unmarshal(body, &rep); err != nil || resp.StatusCode != http.StatusOK || rep.Valid || rep.Rows < 2_000_000 || rep.OmittedErrors == 0 {
				t.Errorf("check %d: %d %v rows %d: %.300s", i, resp.StatusCode, err, rep.Rows, body)
			}
		})
	}
	wg.Wait()
	cpu, wall := userCPU()-before, time.Since(start)
	if share := cpu.Seconds() / wall.Seconds(); share > 1.35 {
		t.Errorf("%d checks at once took %v of user CPU in %v: %.2f processors, want at most 1 (AtOnce) and the test's own work", checks, cpu, wall, share)
	}
	t.Logf("%d checks of %.1f MB: %v user CPU in %v", checks, float64(file.Len())/1e6, cpu, wall)
}

// userCPU is the process's user CPU time so far.
func userCPU() time.Duration {
	var u syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano())
}
