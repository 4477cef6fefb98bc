package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestFormsRetryWithTheirKey: each form that stores something sends an
// Idempotency-Key. Its first try reaches the server and is stored, but
// the answer the page gets is the API's 503 "it may have been saved" (the
// database connection broke at COMMIT; DevTools Fetch interception puts
// that answer in place of the real one). The page says so; the visitor
// sends the form again as it stands (registration with a fresh captcha),
// the retry carries the same key, the server answers what it stored, and
// the submission is stored once.
func TestFormsRetryWithTheirKey(t *testing.T) {
	unknown := `{"error":"the connection to the database broke while this was being saved: it may have been saved","message":"api.errors.unknownOutcome"}`
	for _, c := range []struct {
		name, page, path string
		fill             func(p *page)
		submit           string
		stored           string
		retryNeeds       func(p *page) // before the retry (a new captcha)
	}{
		{"contact", "/contact-us", "/api/contact_us", func(p *page) {
			p.fill("Name", "Meera Joshi")
			p.fill("Email", "meera@example.in")
			p.fill("Subject", "e2e retry with its key")
			p.fill("Message", "Need return loads from Nagpur.")
		}, `form button[type=submit]`, `SELECT COUNT(*) FROM contact_messages WHERE subject = 'e2e retry with its key'`, nil},
		{"feedback", "/feedback-form", "/api/error_feedback", func(p *page) {
			p.fill("Describe your feedback", "e2e retry with its key")
			p.fill("Your Name", "Farhan Shaikh")
			p.fill("Your Email Address", "farhan@example.in")
		}, `form button[type=submit]`, `SELECT COUNT(*) FROM feedback WHERE feedback = 'e2e retry with its key'`, nil},
		{"unsubscribe", "/unsubscribe", "/api/unsubscribe", func(p *page) {
			p.fill("Email", "retry.with.key@example.in")
		}, `form button[type=submit]`, `SELECT COUNT(*) FROM mail_opt_outs WHERE email = 'retry.with.key@example.in'`, nil},
		{"registration", "/registration", "/api/registration", func(p *page) {
			p.fillRegistration("en", "Retry Roadlines", "retry@roadlines.example", "Truck@2024")
			p.waitCaptcha()
		}, `form button[type=submit]`, `SELECT COUNT(*) FROM users WHERE email = 'retry@roadlines.example'`, func(p *page) { p.waitCaptcha() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := countRows(t, c.stored)
			p := newPage(t)
			p.open(c.page)
			c.fill(p)

			paused := chromedp.Events(p.ctx, fetch.RequestPaused)
			if _, err := chromedp.Call(p.ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*" + c.path, RequestStage: fetch.RequestStageResponse}}}); err != nil {
				t.Fatal(err)
			}
			p.click(c.submit)
			var first string
			for ev, err := range paused {
				if err != nil {
					t.Fatal(err)
				}
				first = header(ev.Request.Headers, "Idempotency-Key")
				if ev.ResponseStatusCode >= 300 {
					t.Fatalf("the first try was answered %d", ev.ResponseStatusCode)
				}
				if _, err := chromedp.Call(p.ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: ev.RequestID, ResponseCode: 503, Body: []byte(unknown),
					ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "application/json; charset=utf-8"}, {Name: "Retry-After", Value: "5"}}}); err != nil {
					t.Fatal(err)
				}
				break
			}
			if len(first) < 16 {
				t.Fatalf("the first try sent Idempotency-Key %q", first)
			}
			p.waitNotice("bad")
			if got, want := p.notice("bad"), tr(t, "en", "api.errors.unknownOutcome"); !strings.Contains(got, want) {
				t.Errorf("the page says %q, want %q", got, want)
			}
			if n := countRows(t, c.stored); n != before+1 {
				t.Fatalf("the first try stored %d rows, want 1", n-before)
			}

			if c.retryNeeds != nil {
				c.retryNeeds(p)
			}
			p.click(c.submit)
			for ev, err := range paused {
				if err != nil {
					t.Fatal(err)
				}
				if again := header(ev.Request.Headers, "Idempotency-Key"); again != first {
					t.Errorf("the retry sent Idempotency-Key %q, the first try %q", again, first)
				}
				replayed := false
				for _, h := range ev.ResponseHeaders {
					replayed = replayed || strings.EqualFold(h.Name, "Idempotent-Replayed") && h.Value == "true"
				}
				if ev.ResponseStatusCode >= 300 || !replayed {
					t.Errorf("the retry was answered %d, replayed %v; want the stored answer", ev.ResponseStatusCode, replayed)
				}
				if _, err := chromedp.Call(p.ctx, fetch.ContinueResponse, fetch.ContinueResponseParams{RequestID: ev.RequestID}); err != nil {
					t.Fatal(err)
				}
				break
			}
			if _, err := chromedp.Call(p.ctx, fetch.Disable, cdp.Empty{}); err != nil {
				t.Fatal(err)
			}
			p.waitNotice("ok")
			if n := countRows(t, c.stored); n != before+1 {
				t.Errorf("after the retry: %d rows stored in all, want 1", n-before)
			}
			p.consoleErrors() // the 503 is logged, as it should be
		})
	}
}

// header is a request header's value, whatever its case.
func header(h network.Headers, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			s, _ := v.(string)
			return s
		}
	}
	return ""
}
