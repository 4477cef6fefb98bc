package e2e

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"freightsite/receivables"
)

// importLanguages are the format page's versions with the texts each must
// show: the first column's name and the reason for a 5-digit phone.
var importLanguages = []struct{ prefix, first, phoneReason, validTitle string }{
	{"", "Account Number", "Must be exactly 10 digits", "bad.csv is not valid"},
	{"/hi", "खाता संख्या", "ठीक 10 अंक होने चाहिए, केवल 0–9", "bad.csv सही नहीं है"},
	{"/ma", "खाते क्रमांक", "नेमके 10 अंक असावेत, फक्त 0–9", "bad.csv योग्य नाही"},
}

// TestImportFormatPage: each language lists the 25 columns of the schema,
// in order, translated, with the 9 required ones marked.
func TestImportFormatPage(t *testing.T) {
	for _, l := range importLanguages {
		t.Run("lang="+strings.TrimPrefix(l.prefix, "/"), func(t *testing.T) {
			p := newPage(t)
			p.open(l.prefix + "/standard-15-day-format")
			ids := eval[[]string](p, `[...document.querySelectorAll('table.import-columns tbody tr')].map(tr => tr.dataset.column)`)
			if len(ids) != receivables.ColumnCount {
				t.Fatalf("%d columns listed, want 25", len(ids))
			}
			for i, c := range receivables.Format.Columns {
				if ids[i] != c.ID {
					t.Errorf("row %d is %s, want %s", i+1, ids[i], c.ID)
				}
			}
			if first := eval[string](p, `document.querySelector('table.import-columns tbody th').textContent`); first != l.first {
				t.Errorf("first column named %q, want %q", first, l.first)
			}
			if n := eval[int](p, `document.querySelectorAll('table.import-columns .required').length`); n != 9 {
				t.Errorf("%d required columns marked, want 9", n)
			}
			if l.prefix != "" {
				if latin := eval[int](p, `[...document.querySelectorAll('table.import-columns tbody th')].filter(th => /^[A-Za-z ]+$/.test(th.textContent)).length`); latin > 0 {
					t.Errorf("%d column names are left in English", latin)
				}
			}
			p.expectNoConsoleErrors()
		})
	}
}

// TestImportSampleDownloads: the page's sample link serves a CSV file that
// the validator accepts.
func TestImportSampleDownloads(t *testing.T) {
	p := newPage(t)
	p.open("/ma/standard-15-day-format")
	href := eval[string](p, `document.querySelector('a[download]').getAttribute('href')`)
	resp, err := http.Get(baseURL + href)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("%s: %d %s", href, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	rep, err := receivables.Validate(resp.Body, receivables.Options{MaxErrors: 10})
	if err != nil || !rep.Valid || rep.Rows == 0 {
		t.Errorf("the sample does not validate: %v %+v", err, rep)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
}

// TestImportCheckIsland: a clerk picks a bad file and sees each error with
// its line, column, value and reason in the page's language; a good file
// is reported valid.
func TestImportCheckIsland(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	sample := string(receivables.Sample())
	if err := os.WriteFile(bad, []byte(strings.Replace(sample, "9876543210", "98765", 1)+"CUST-9,too few\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.csv")
	if err := os.WriteFile(good, []byte(sample), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range importLanguages {
		t.Run("lang="+strings.TrimPrefix(l.prefix, "/"), func(t *testing.T) {
			p := newPage(t, viewport(360, 740))
			p.open(l.prefix + "/standard-15-day-format")
			p.do(chromedp.SetUploadFiles(chromedp.CSS(`.import-check input[type=file]`), []string{bad}))
			p.click(`.import-check button[type=submit]`)
			p.waitFor(`document.querySelector('.import-outcome') !== null`)
			if title := eval[string](p, `document.querySelector('.import-outcome h3').textContent`); title != l.validTitle {
				t.Errorf("outcome %q, want %q", title, l.validTitle)
			}
			rows := eval[[][]string](p, `[...document.querySelectorAll('.import-errors tbody tr')].map(tr => [...tr.cells].map(td => td.textContent))`)
			if len(rows) != 2 {
				t.Fatalf("error rows %v", rows)
			}
			if r := rows[0]; r[0] != "2" || !strings.HasPrefix(r[1], "4. ") || r[2] != "98765" || r[3] != l.phoneReason {
				t.Errorf("first error row %q", r)
			}
			if r := rows[1]; r[0] != "5" || r[2] != "" || !strings.Contains(r[3], "25") || !strings.Contains(r[3], "2") {
				t.Errorf("second error row %q", r)
			}
			if focused := eval[bool](p, `document.activeElement === document.querySelector('.import-outcome h3')`); !focused {
				t.Error("focus did not move to the outcome")
			}
			if wide := eval[[]string](p, overflowing); len(wide) > 0 {
				t.Errorf("the error table is wider than a 360 px screen: %v", wide)
			}
			p.expectAccessible()
			p.screenshot("import-check-errors" + strings.ReplaceAll(l.prefix, "/", "-"))

			p.do(chromedp.SetUploadFiles(chromedp.CSS(`.import-check input[type=file]`), []string{good}))
			p.click(`.import-check button[type=submit]`)
			p.waitFor(`document.querySelector('.import-outcome')?.dataset.valid === 'true'`)
			if n := eval[int](p, `document.querySelectorAll('.import-errors').length`); n != 0 {
				t.Errorf("a valid file still shows %d error tables", n)
			}
			p.expectNoConsoleErrors()
		})
	}
}
