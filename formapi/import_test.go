package formapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"freightsite/receivables"
)

// postFile posts body as the multipart field (named name) with the XSRF
// header, streaming it through a pipe so the client never holds the whole
// file either.
func postFile(t *testing.T, a *testAPI, field, name string, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	return postFileTo(t, a, "/api/import/validate", field, name, body)
}

func postFileTo(t *testing.T, a *testAPI, path, field, name string, body io.Reader) (*http.Response, []byte) {
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
	resp := a.do(http.MethodPost, path, mw.FormDataContentType(), pr, http.Header{xsrfHeader: {a.token()}})
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
		resp, body := postFileTo(t, api, "/api/import/fix", "file", "march.csv", strings.NewReader(file))
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
		resp, body := postFileTo(t, api, "/api/import/fix", "file", "सूची.csv", bytes.NewReader(receivables.Sample()))
		if resp.StatusCode != 200 || resp.Header.Get("X-Changes") != "0" || !bytes.Equal(body, receivables.Sample()) ||
			resp.Header.Get("Content-Disposition") != `attachment; filename*=utf-8''%E0%A4%B8%E0%A5%82%E0%A4%9A%E0%A5%80-corrected.csv` {
			t.Errorf("%d %v", resp.StatusCode, resp.Header)
		}
	})
	t.Run("not CSV", func(t *testing.T) {
		workbook := io.MultiReader(strings.NewReader("PK\x03\x04"), io.LimitReader(zeros{}, 5<<20))
		resp, body := postFileTo(t, api, "/api/import/fix", "file", "book.xlsx", workbook)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), `"unusable":"this is an Excel workbook`) {
			t.Errorf("%d: %s", resp.StatusCode, body)
		}
	})
	t.Run("over 50 MB", func(t *testing.T) {
		big := io.MultiReader(bytes.NewReader(receivables.Sample()), &rows{n: 400_000})
		resp, body := postFileTo(t, api, "/api/import/fix", "file", "big.csv", big)
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
