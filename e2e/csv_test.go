package e2e

import (
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"freightsite/receivables"
)

func init() {
	// The browser tests check about fifteen files within a minute from
	// one address, more than the import rate lets one clerk do
	// (formapi's tests check that limit).
	serverEnv = append(serverEnv, "FREIGHTSITE_RATE_LIMIT=import=100/1m")
}

// importLanguages are the format page's versions with the texts each must
// show: the first column's name, the reason for a 5-digit phone, the
// phone column's name and the CSV download's heading.
var importLanguages = []struct{ prefix, first, phoneReason, validTitle, phone, csvHeading string }{
	{"", "Account Number", "Must be exactly 10 digits", "bad.csv is not valid", "Phone", "Row,Column letter,Column,Value,Problem,Type instead"},
	{"/hi", "खाता संख्या", "ठीक 10 अंक होने चाहिए, केवल 0–9", "bad.csv सही नहीं है", "फ़ोन", "पंक्ति,कॉलम अक्षर,कॉलम,मान,समस्या,इसकी जगह लिखें"},
	{"/ma", "खाते क्रमांक", "नेमके 10 अंक असावेत, फक्त 0–9", "bad.csv योग्य नाही", "फोन", "ओळ,कॉलमचे अक्षर,कॉलम,मूल्य,समस्या,त्याऐवजी लिहा"},
}

// TestImportFormatPage: each language lists the 25 columns of the schema,
// in order, translated, with the 9 required ones marked.
func TestImportFormatPage(t *testing.T) {
	for i, l := range importLanguages {
		lang := languagesUnderTest[i].code
		t.Run("lang="+strings.TrimPrefix(l.prefix, "/"), func(t *testing.T) {
			p := newPage(t)
			p.open(l.prefix + "/standard-15-day-format")
			// Each row of the table is headed by its column's name.
			table := byRole("table", text(t, lang, "importFormat.tableCaption"))
			names := eval[[]string](p, `allByRole('rowheader', undefined, `+table+`).map(th => th.textContent)`)
			if len(names) != receivables.ColumnCount {
				t.Fatalf("%d columns listed, want 25", len(names))
			}
			for i, c := range receivables.Format.Columns {
				if want := text(t, lang, "importFormat.columns."+c.ID); names[i] != want {
					t.Errorf("row %d is %s, want %s (%s)", i+1, names[i], want, c.ID)
				}
			}
			if first := names[0]; first != l.first {
				t.Errorf("first column named %q, want %q", first, l.first)
			}
			required := jsString(text(t, lang, "importFormat.required") + ".")
			if n := eval[int](p, `allByRole('cell', undefined, `+table+`).filter(td => td.textContent.startsWith(`+required+`)).length`); n != 9 {
				t.Errorf("%d required columns marked, want 9", n)
			}
			if l.prefix != "" {
				if latin := eval[int](p, `allByRole('rowheader', undefined, `+table+`).filter(th => /^[A-Za-z ]+$/.test(th.textContent)).length`); latin > 0 {
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
	href := eval[string](p, byRole("link", text(t, "ma", "importFormat.sampleLink"))+`.getAttribute('href')`)
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
// its Excel row, column letter and name, value and reason in the page's
// language; a good file is reported valid.
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
	for i, l := range importLanguages {
		lang := languagesUnderTest[i].code
		t.Run("lang="+strings.TrimPrefix(l.prefix, "/"), func(t *testing.T) {
			p := newPage(t, viewport(360, 740))
			p.open(l.prefix + "/standard-15-day-format")
			p.checkImportFile(lang, bad)
			if title := eval[string](p, outcomeHeading(bad)+`?.textContent`); title != l.validTitle {
				t.Errorf("outcome %q, want %q", title, l.validTitle)
			}
			rows := eval[[][]string](p, errorRows(t, lang))
			if len(rows) != 2 {
				t.Fatalf("error rows %v", rows)
			}
			if r := rows[0]; r[0] != "2" || r[1] != "D2: "+l.phone || r[2] != "98765" || r[3] != l.phoneReason {
				t.Errorf("first error row %q", r)
			}
			if r := rows[1]; r[0] != "5" || r[2] != "" || !strings.Contains(r[3], "25") || !strings.Contains(r[3], "2") {
				t.Errorf("second error row %q", r)
			}
			if focused := eval[bool](p, `document.activeElement === `+outcomeHeading(bad)); !focused {
				t.Error("focus did not move to the outcome")
			}
			if wide := eval[[]string](p, overflowing); len(wide) > 0 {
				t.Errorf("the error table is wider than a 360 px screen: %v", wide)
			}
			p.expectAccessible()
			p.screenshot("import-check-errors" + strings.ReplaceAll(l.prefix, "/", "-"))

			p.sendImportFile(lang, good)
			p.waitFor(byRole("heading", text(t, lang, "importFormat.check.validTitle", "name", "good.csv")) + ` !== null`)
			if n := eval[int](p, errorTables(t, lang)+`.length`); n != 0 {
				t.Errorf("a valid file still shows %d error tables", n)
			}
			p.expectNoConsoleErrors()
		})
	}
}

// The format page's checker as a clerk finds its parts, in the page's
// language: the file input by its label, the button by its text, the
// outcome by its heading, the outcome's parts by their headings and
// captions.

// sendImportFile picks a file in the format page's checker and presses
// Check file.
func (p *page) sendImportFile(lang, file string) {
	p.t.Helper()
	p.do(chromedp.SetUploadFiles(locate(byLabel(text(p.t, lang, "importFormat.check.file"))), []string{file}))
	p.click(checkButton(p.t, lang))
}

// checkImportFile picks a file in the format page's checker, submits it
// and waits for the outcome.
func (p *page) checkImportFile(lang, file string) {
	p.t.Helper()
	p.sendImportFile(lang, file)
	p.waitFor(outcomeHeading(file) + ` !== null`)
}

// checkButton is the button that starts a check.
func checkButton(t *testing.T, lang string) string {
	return byRole("button", text(t, lang, "importFormat.check.submit"))
}

// formatPage is the format page's region, named by the page's title.
func formatPage(t *testing.T, lang string) string {
	return byRole("region", text(t, lang, "importFormat.title"))
}

// outcomeHeading is the heading of the outcome of checking file, which
// starts with the file's name in every language ("bad.csv is not
// valid"), or null.
func outcomeHeading(file string) string {
	return `(allByRole('heading').find(h => nameOf(h).startsWith(` + jsString(filepath.Base(file)+" ") + `)) ?? null)`
}

// listedIn is the text of each item of the lists in region, none when
// there is no such region.
func listedIn(region string) string {
	return `(r => r ? allByRole('listitem', undefined, r).map(li => li.textContent) : [])(` + region + `)`
}

// errorTables are the outcome's tables of errors, captioned "Errors in
// bad.csv" in the page's language.
func errorTables(t *testing.T, lang string) string {
	parts := strings.Split(text(t, lang, "importFormat.check.tableCaption", "name", "\x00"), "\x00")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return `allByRole('table', new RegExp(` + jsString("^"+strings.Join(parts, ".+")+"$") + `))`
}

// errorRows is the text of each cell of each row of errors in those
// tables (the rows of cells, not of column headers).
func errorRows(t *testing.T, lang string) string {
	return errorTables(t, lang) + `.flatMap(table => allByRole('row', undefined, table)).filter(tr => byRole('cell', undefined, tr)).map(tr => allByRole('cell', undefined, tr).map(td => td.textContent))`
}

// tallyFile writes a file as a clerk's Tally export gives it: two title
// lines above the heading, then n accounts whose seven amounts carry
// thousands separators (1,234.00), one with a fax of 5 digits (row 7004)
// and one with its state's name (row 12004).
func tallyFile(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("Sharma Roadlines Pvt Ltd\r\nBills Receivable\r\n")
	for i, c := range receivables.Format.Columns {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(c.Name)
	}
	b.WriteString("\r\n")
	amounts := strings.Repeat(`,"1,234.00"`, 7)
	for i := range n {
		fax, state := "", "MH"
		switch i {
		case 7000:
			fax = "12345"
		case 12000:
			state = "Maharashtra"
		}
		fmt.Fprintf(&b, "CUST-%06d,Shri Ganesh Transport,,9876543210,%s,,,Pune,%s,411001,IN,,,,,,,%s\r\n", i, fax, state, amounts)
	}
	file := filepath.Join(t.TempDir(), "tally.csv")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// importCheckTexts are what each language says about tallyFile(15000):
// the first cause, the first other error's cell and what to type, and
// the cancelled note.
var importCheckTexts = []struct {
	prefix, cause, column, instead, cancelled string
}{
	{"", "Rows 1–2 come before the heading", "I12004: State", "Type MH instead.", "The check was cancelled."},
	{"/hi", "पंक्तियाँ 1–2 शीर्षक से पहले हैं", "I12004: राज्य", "इसकी जगह MH लिखें।", "जाँच रद्द कर दी गई।"},
	{"/ma", "ओळी 1–2 शीर्षकाच्या आधी आहेत", "I12004: राज्य", "त्याऐवजी MH लिहा.", "तपासणी रद्द केली."},
}

// TestImportCheckOneCauseAndDownload: a Tally export whose 1,05,000
// amounts all carry thousands separators gets two causes, the lines above
// the heading and the separators said once for columns S–Y with how to
// correct them in Excel (numbers grouped the Indian way in every
// language), then only its two other errors, with their row numbers as
// Excel shows them and what to type; the download keeps every cell, and
// a corrected copy is offered.
func TestImportCheckOneCauseAndDownload(t *testing.T) {
	file := tallyFile(t, 15000)
	for i, l := range importCheckTexts {
		lang := languagesUnderTest[i].code
		t.Run("lang="+lang, func(t *testing.T) {
			p := newPage(t, viewport(390, 844))
			p.open(l.prefix + "/standard-15-day-format")
			p.checkImportFile(lang, file)
			causes := eval[[]string](p, listedIn(byRole("region", text(t, lang, "importFormat.check.causesTitle"))))
			fix := text(t, lang, "importFormat.excelFix.thousands", "columns", text(t, lang, "importFormat.check.columnsNamed_other", "letters", "S–Y"))
			column := text(t, lang, "importFormat.causes.column", "letters", "S–Y",
				"names", text(t, lang, "importFormat.columns.days1to15")+" … "+text(t, lang, "importFormat.columns.days91Plus"),
				"what", text(t, lang, "importFormat.summary.thousands_other", "n", "1,05,000"), "cell", "S4", "value", "1,234.00", "fix", fix)
			if len(causes) != 2 || !strings.HasPrefix(causes[0], l.cause) || causes[1] != column {
				t.Errorf("causes %q, want one starting %q and\n%q", causes, l.cause, column)
			}
			if n := eval[int](p, `allByRole('table', `+jsString(text(t, lang, "importFormat.check.summaryTitle"))+`).length`); n != 0 {
				t.Error("a summary of what the causes say")
			}
			rows := eval[[][]string](p, errorRows(t, lang))
			if len(rows) != 2 || rows[0][0] != "7004" || rows[1][0] != "12004" || rows[1][1] != l.column || rows[1][2] != "Maharashtra" || !strings.HasSuffix(rows[1][3], " "+l.instead) {
				t.Errorf("errors %q", rows)
			}
			correctedCopy := byRole("region", text(t, lang, "importFormat.check.fixTitle"))
			if n := eval[int](p, `(r => r ? allByRole('button', undefined, r).length : 0)(`+correctedCopy+`)`); n != 1 {
				t.Error("no corrected copy offered")
			}
			if wide := eval[[]string](p, overflowing); len(wide) > 0 {
				t.Errorf("wider than a 390 px screen: %v", wide)
			}
			p.expectAccessible()
			p.screenshot("import-check-column-cause-" + lang)

			file := p.download(byRole("button", text(t, lang, "importFormat.check.download")))
			if !strings.HasPrefix(file, "\ufeff"+importLanguages[i].csvHeading+"\r\n") {
				t.Fatalf("the download starts %.100q", file)
			}
			lines, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(file, "\ufeff"))).ReadAll()
			if err != nil || len(lines) != 1+2+receivables.DefaultMaxErrors+2 {
				t.Fatalf("%d lines, %v", len(lines), err)
			}
			if c := lines[1]; c[0] != "1" || c[3] != "Sharma Roadlines Pvt Ltd" || !strings.HasPrefix(c[4], l.cause) || c[5] != "" {
				t.Errorf("cause line %q", c)
			}
			if e := lines[3]; e[0] != "4" || e[1] != "S" || e[2] != text(t, lang, "importFormat.columns.days1to15") || e[3] != "1,234.00" || e[4] == "" || e[5] != "1234.00" {
				t.Errorf("first error line %q", e)
			}
			if e := lines[len(lines)-1]; e[0] != "12004" || e[1] != "I" || e[5] != "MH" {
				t.Errorf("last error line %q", e)
			}
			p.expectNoConsoleErrors()
		})
	}
}

// TestImportCheckProgressAndCancel: on a slow line the page shows how much
// of the file has gone, and Cancel stops the upload; the next check runs
// to the end.
func TestImportCheckProgressAndCancel(t *testing.T) {
	file := tallyFile(t, 15000) // about 2.5 MB
	for i, l := range importCheckTexts {
		lang := languagesUnderTest[i].code
		t.Run("lang="+strings.TrimPrefix(l.prefix, "/"), func(t *testing.T) {
			p := newPage(t)
			p.open(l.prefix + "/standard-15-day-format")
			p.throttleUploads(100 << 10) // 100 KB/s: 25 seconds for the file, time to look and cancel
			p.sendImportFile(lang, file)
			p.waitFor(`byRole('progressbar')?.value > 0.05`)
			// Both read at once: the upload goes on meanwhile. The share
			// sent is the text beside the bar ("12%").
			now := eval[[]string](p, `[byText(/^\d[\d.,]*\s?%$/)?.textContent ?? '', nameOf(byRole('progressbar'))]`)
			shown, label := now[0], now[1]
			if !strings.HasSuffix(shown, "%") || !strings.HasSuffix(label, shown) || !eval[bool](p, checkButton(t, lang)+`.disabled`) {
				t.Errorf("while sending: %q shown, progress labelled %q", shown, label)
			}
			p.expectAccessible()
			p.screenshot("import-check-progress" + strings.ReplaceAll(l.prefix, "/", "-"))
			p.click(byRole("button", text(t, lang, "importFormat.check.cancel")))
			p.waitFor(`allByRole('status', undefined, ` + formatPage(t, lang) + `).some(s => s.textContent === ` + jsString(l.cancelled) + `)`)
			if eval[bool](p, `byRole('progressbar') !== null || `+outcomeHeading(file)+` !== null || byRole('alert', undefined, `+formatPage(t, lang)+`) !== null`) {
				t.Error("after cancelling, the page shows progress or an outcome")
			}
			if !eval[bool](p, `document.activeElement === `+checkButton(t, lang)) {
				t.Error("focus did not return to the check button")
			}
			p.throttleUploads(-1)
			p.click(checkButton(t, lang))
			p.waitFor(byRole("heading", text(t, lang, "importFormat.check.invalidTitle", "name", filepath.Base(file))) + ` !== null`)
			p.expectNoConsoleErrors()
		})
	}
}

// causeFile is one way a clerk's file goes wrong as a whole, and the
// causes the page must say for it, in the page's language.
type causeFile struct {
	name   string
	file   string
	causes func(t *testing.T, lang string) []string
}

// causeFiles are files made as Excel saves them after a clerk's usual
// slips (or saved as a workbook or Unicode Text, which cannot be read as
// CSV at all), each read by the page to its causes only (no row errors).
func causeFiles(t *testing.T) []causeFile {
	dir := t.TempDir()
	sample := strings.TrimPrefix(string(receivables.Sample()), "\ufeff")
	lines := strings.Split(strings.TrimSuffix(sample, "\r\n"), "\r\n")
	write := func(name string, lines ...string) string {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, []byte(strings.Join(lines, "\r\n")+"\r\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	column := func(lang string, i int) string {
		return text(t, lang, "importFormat.columns."+receivables.Format.Columns[i].ID)
	}
	heading := strings.Split(lines[0], ",")
	slices.Reverse(heading[18:])

	padded := make([]string, len(lines))
	for i, l := range lines {
		padded[i] = l + ",,"
	}
	padded = append(padded, strings.Repeat(",", receivables.ColumnCount+1), "Grand Total"+strings.Repeat(",", 18)+"133400.00,48250.50,0,12000,0,-1500,7049.50,,")

	// Excel's ANSI "CSV (Comma delimited)" writes a ? for each letter
	// it has no code for.
	ansi := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r > 0x7f {
				return '?'
			}
			return r
		}, s)
	}

	// Excel for Mac's "CSV (Macintosh)" ends lines with a bare CR.
	mac := filepath.Join(dir, "mac.csv")
	if err := os.WriteFile(mac, []byte(strings.ReplaceAll(sample, "\r\n", "\r")), 0o644); err != nil {
		t.Fatal(err)
	}

	return []causeFile{
		{"the ageing buckets reversed", write("reversed.csv", append([]string{strings.Join(heading, ",")}, lines[1:]...)...), func(t *testing.T, lang string) []string {
			var want []string
			for i := 18; i < receivables.ColumnCount; i++ {
				if j := receivables.ColumnCount - 1 - (i - 18); j != i {
					want = append(want, text(t, lang, "importFormat.causes.columnOrder", "letter", receivables.ColumnLetter(i+1),
						"value", receivables.Format.Columns[j].Name, "name", column(lang, j), "target", receivables.ColumnLetter(j+1)))
				}
			}
			return want
		}},
		{"semicolons", write("semicolons.csv", strings.ReplaceAll(sample, ",", ";")), func(t *testing.T, lang string) []string {
			sep := text(t, lang, "importFormat.separators.semicolon")
			return []string{text(t, lang, "importFormat.causes.separator", "sep", sep)}
		}},
		{"Excel's empty columns, a row of commas, a totals row", write("padded.csv", padded...), func(t *testing.T, lang string) []string {
			return []string{
				text(t, lang, "importFormat.causes.trailingColumns_other", "n", "6", "columns", "Z–AA"),
				text(t, lang, "importFormat.causes.emptyRows_one", "n", "1", "row", "5"),
				text(t, lang, "importFormat.causes.totalsRow", "row", "6", "value", "Grand Total"),
			}
		}},
		{"Devanagari lost to an ANSI save", write("ansi.csv", strings.TrimSuffix(ansi(sample), "\r\n")), func(t *testing.T, lang string) []string {
			return []string{text(t, lang, "importFormat.causes.lostText_one", "n", "1", "row", "3", "letter", "B", "name", column(lang, 1), "value", ansi(strings.Split(lines[2], ",")[1]))}
		}},
		{"an Excel workbook", write("march.xlsx", "PK\x03\x04\x14\x00\x06\x00[Content_Types].xml"), func(t *testing.T, lang string) []string {
			return []string{text(t, lang, "importFormat.causes.workbook")}
		}},
		{"Excel's Unicode Text", write("march.txt", "\xff\xfeA\x00c\x00c\x00o\x00u\x00n\x00t\x00\t\x00"), func(t *testing.T, lang string) []string {
			return []string{text(t, lang, "importFormat.causes.unicodeText")}
		}},
		{"no heading line", write("accounts.csv", lines[1:]...), func(t *testing.T, lang string) []string {
			return []string{text(t, lang, "importFormat.causes.headingIsData", "value", "CUST-000123 (Sharma Roadlines Pvt Ltd)")}
		}},
		{"Excel for Mac's CSV (Macintosh)", mac, func(t *testing.T, lang string) []string {
			return []string{text(t, lang, "importFormat.causes.lineEnds")}
		}},
	}
}

// TestImportCheckSaysEachCause: for each way a whole file goes wrong, the
// page lists the cause once, in the page's language, with the file's own
// values, rows and column letters filled in, and no row errors after it.
func TestImportCheckSaysEachCause(t *testing.T) {
	files := causeFiles(t)
	for _, l := range languagesUnderTest {
		t.Run("lang="+l.code, func(t *testing.T) {
			p := newPage(t, viewport(390, 844))
			p.open(l.prefix + "/standard-15-day-format")
			for i, f := range files {
				p.checkImportFile(l.code, f.file)
				got := eval[[]string](p, listedIn(byRole("region", text(t, l.code, "importFormat.check.causesTitle"))))
				if want := f.causes(t, l.code); !slices.Equal(got, want) {
					t.Errorf("%s: the page says\n%q\nwant\n%q", f.name, got, want)
				}
				if n := eval[int](p, errorRows(t, l.code)+`.length`); n != 0 {
					t.Errorf("%s: %d row errors listed after the causes", f.name, n)
				}
				if i == 0 {
					p.expectAccessible()
					p.screenshot("import-check-causes-" + l.code)
				}
			}
			p.expectNoConsoleErrors()
		})
	}
}

// TestImportCheckRefusesBeforeSending: with no file chosen, or one over
// 50 MB, the page says so at once (the 50 MB advice: split the file, every
// part starting with the heading line) and sends nothing.
func TestImportCheckRefusesBeforeSending(t *testing.T) {
	big := filepath.Join(t.TempDir(), "march-full-year.csv")
	f, err := os.Create(big)
	if err == nil {
		err = f.Truncate(receivables.Format.MaxFileBytes + 1) // sparse: no disk used
	}
	if err != nil || f.Close() != nil {
		t.Fatal(err)
	}
	for _, l := range languagesUnderTest {
		t.Run("lang="+l.code, func(t *testing.T) {
			p := newPage(t)
			p.open(l.prefix + "/standard-15-day-format")
			p.do(chromedp.Evaluate[chromedp.Void](`window.sent = 0; (send => XMLHttpRequest.prototype.send = function (...a) { window.sent++; return send.apply(this, a); })(XMLHttpRequest.prototype.send)`))
			alert := `byRole('alert', undefined, ` + formatPage(t, l.code) + `)`
			p.click(checkButton(t, l.code))
			p.waitFor(alert + ` !== null`)
			if got, want := eval[string](p, alert+`.textContent`), text(t, l.code, "importFormat.check.noFile"); got != want {
				t.Errorf("no file: %q, want %q", got, want)
			}
			p.sendImportFile(l.code, big)
			want := text(t, l.code, "importFormat.check.tooLarge")
			p.waitFor(alert + `?.textContent === ` + jsString(want))
			if sent := eval[int](p, `window.sent`); sent != 0 {
				t.Errorf("%d requests sent", sent)
			}
			p.expectAccessible()
			p.expectNoConsoleErrors()
		})
	}
}

// clerkFile writes lines (CRLF) as a clerk's tools leave them.
func clerkFile(t *testing.T, name string, lines ...string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\r\n")+"\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// sampleLines are the sample file's heading and rows, with the first
// account's address without its comma (so a row can be written without
// quotes, as a web portal writes it).
func sampleLines() []string {
	sample := strings.TrimPrefix(string(receivables.Sample()), "\ufeff")
	sample = strings.Replace(sample, `"Plot 14, MIDC Industrial Area"`, "Plot 14 MIDC Industrial Area", 1)
	return strings.Split(strings.TrimSuffix(sample, "\r\n"), "\r\n")
}

// TestImportCheckCorrectedCopy: a file with slips the corrected copy
// mends (another separator, title lines, Excel's Accounting format, a
// state written out, a group heading, a totals row) is offered back
// corrected, in every language; the copy the browser saves checks valid.
func TestImportCheckCorrectedCopy(t *testing.T) {
	lines := sampleLines()
	row := strings.Split(lines[1], ",")
	row[8], row[10], row[18], row[23] = "Maharashtra", "India", ` ₹ 1,25,000.00 `, " (1,500.00)"
	group := "MUMBAI" + strings.Repeat(";", 24)
	file := clerkFile(t, "march.csv", "Sharma Roadlines Pvt Ltd", "Outstanding as on 31-Mar-2026",
		strings.ReplaceAll(lines[0], ",", ";"), group, strings.Join(row, ";"), strings.ReplaceAll(lines[2], ",", ";"),
		"Grand Total"+strings.Repeat(";", 18)+"133400,00;48250,50;0;12000;0;-1500;7049,50")
	for _, l := range languagesUnderTest {
		t.Run("lang="+l.code, func(t *testing.T) {
			p := newPage(t, viewport(390, 844))
			p.open(l.prefix + "/standard-15-day-format")
			p.checkImportFile(l.code, file)
			correctedCopy := byRole("region", text(t, l.code, "importFormat.check.fixTitle"))
			got := eval[string](p, `byRole('paragraph', undefined, `+correctedCopy+`).textContent`)
			if want := text(t, l.code, "importFormat.check.fixIntro_other", "n", "4", "causes", "4"); !strings.HasPrefix(got, want) {
				t.Errorf("the copy is offered as %q, want %q", got, want)
			}
			p.expectAccessible()
			p.screenshot("import-check-corrected-copy-" + l.code)
			copied := p.download(byRole("button", text(t, l.code, "importFormat.check.fixDownload")))
			p.waitFor(`byRole('status', undefined, ` + correctedCopy + `).textContent === ` + jsString(text(t, l.code, "importFormat.check.fixed")))
			rep, err := receivables.Validate(strings.NewReader(copied), receivables.Options{MaxErrors: 10})
			if err != nil || !rep.Valid || rep.Rows != 2 || !strings.HasPrefix(copied, lines[0]+"\r\n") {
				t.Errorf("the copy does not check valid: %v %+v\n%s", err, rep, copied)
			}
			corrected := clerkFile(t, "march-corrected.csv", strings.Split(strings.TrimSuffix(copied, "\r\n"), "\r\n")...)
			p.checkImportFile(l.code, corrected)
			p.waitFor(byRole("heading", text(t, l.code, "importFormat.check.validTitle", "name", "march-corrected.csv")) + ` !== null`)
			p.expectNoConsoleErrors()
		})
	}
}

// TestImportCheckSaysWhatToType: a file made as clerks make them (a name
// with a comma not in quotes, a group heading, Dr and Cr, an invisible
// space, an MC number without its zero, the same account twice) is said
// in every language: rows as Excel numbers them (1502, not 1,502) with
// their cells, what to type, and the copy of an earlier row as a warning.
func TestImportCheckSaysWhatToType(t *testing.T) {
	lines := sampleLines()
	account := func(i int, change func([]string)) string {
		row := strings.Split(lines[1], ",")
		row[0] = fmt.Sprintf("CUST-%06d", i)
		if change != nil {
			change(row)
		}
		return strings.Join(row, ",")
	}
	file := []string{lines[0]}
	for i := 2; i <= 1600; i++ {
		switch i {
		case 3:
			file = append(file, account(i, func(r []string) { r[1] = "Shree Ganesh Roadlines, Pune" }))
		case 5:
			file = append(file, "MUMBAI"+strings.Repeat(",", 24))
		case 1502:
			file = append(file, account(i, func(r []string) { r[19] = "500.00 Cr" }))
		case 1503:
			file = append(file, account(i, func(r []string) { r[0] += "\u00a0" }))
		case 1550:
			file = append(file, account(i, func(r []string) { r[2] = "12345" }))
		case 1600:
			file = append(file, file[9]) // row 10 pasted again
		default:
			file = append(file, account(i, nil))
		}
	}
	path := clerkFile(t, "april.csv", file...)
	for _, l := range languagesUnderTest {
		t.Run("lang="+l.code, func(t *testing.T) {
			p := newPage(t, viewport(360, 740))
			p.open(l.prefix + "/standard-15-day-format")
			p.checkImportFile(l.code, path)
			causes := eval[[]string](p, listedIn(byRole("region", text(t, l.code, "importFormat.check.causesTitle"))))
			if want := text(t, l.code, "importFormat.causes.groupHeadings_one", "n", "1", "value", "MUMBAI", "row", "5"); len(causes) != 1 || causes[0] != want {
				t.Errorf("causes %q, want %q", causes, want)
			}
			name := func(id string) string { return text(t, l.code, "importFormat.columns."+id) }
			rows := eval[[][]string](p, errorRows(t, l.code))
			want := [][]string{
				{"3", "B3: " + name("companyName"), "Shree Ganesh Roadlines, Pune", text(t, l.code, "importFormat.rules.unquotedComma_other", "count", "26",
					"value", "Shree Ganesh Roadlines, Pune", "rest", `" Pune"`, "suggestion", `"Shree Ganesh Roadlines, Pune"`)},
				{"1502", "T1502: " + name("days16to30"), "500.00 Cr", text(t, l.code, "importFormat.rules.drCr") + " " + text(t, l.code, "importFormat.check.typeInstead", "value", "-500.00")},
				{"1503", "A1503: " + name("accountNumber"), "CUST-001503\u00a0", text(t, l.code, "importFormat.rules.invisible", "char", text(t, l.code, "importFormat.invisibleChars.u00a0"),
					"code", "U+00A0", "place", text(t, l.code, "importFormat.invisiblePlace.end")) + " " + text(t, l.code, "importFormat.check.typeInstead", "value", "CUST-001503")},
				{"1550", "C1550: " + name("mcNumber"), "12345", text(t, l.code, "importFormat.rules.leadingZero_other", "count", "6") + " " + text(t, l.code, "importFormat.check.typeInstead", "value", "012345")},
			}
			if fmt.Sprint(rows) != fmt.Sprint(want) {
				t.Errorf("errors\n%q\nwant\n%q", rows, want)
			}
			warnings := eval[[]string](p, listedIn(byRole("region", text(t, l.code, "importFormat.check.warningsTitle"))))
			if want := text(t, l.code, "importFormat.check.rowCell", "row", "1600", "cell", "A1600") + " " +
				text(t, l.code, "importFormat.warnings.duplicateRow", "row", "10", "value", "CUST-000010"); len(warnings) != 1 || warnings[0] != want {
				t.Errorf("warnings %q, want %q", warnings, want)
			}
			if wide := eval[[]string](p, overflowing); len(wide) > 0 {
				t.Errorf("wider than a 360 px screen: %v", wide)
			}
			p.expectAccessible()
			p.screenshot("import-check-what-to-type-" + l.code)
			p.expectNoConsoleErrors()
		})
	}
}
