package formapi

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"freightsite/locales"
)

// formPost posts a form to a page of the site as a browser without
// JavaScript does: no anti-forgery header, the browser's word that it
// comes from the site's own page.
func (a *testAPI) formPost(path string, values url.Values) (*http.Response, string) {
	a.t.Helper()
	resp := a.do(http.MethodPost, path, "application/x-www-form-urlencoded", strings.NewReader(values.Encode()), http.Header{"Sec-Fetch-Site": {"same-origin"}, "Origin": {a.srv.URL}})
	return resp, bodyText(resp)
}

func (a *testAPI) multipartPost(path string, fields [][2]string, file []byte) (*http.Response, string) {
	a.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, f := range fields {
		_ = mw.WriteField(f[0], f[1])
	}
	if file != nil {
		fw, _ := mw.CreateFormFile("attachment", "shot.png")
		_, _ = fw.Write(file)
	}
	_ = mw.Close()
	resp := a.do(http.MethodPost, path, mw.FormDataContentType(), &body, http.Header{"Sec-Fetch-Site": {"same-origin"}})
	return resp, bodyText(resp)
}

// expectPage checks an answer page: its status, an HTML page whose
// texts include want (in the page's language), and none of the visitor's
// data in the address it answers.
func expectPage(t *testing.T, resp *http.Response, body string, status int, want ...string) {
	t.Helper()
	if resp.StatusCode != status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("%s: %d %s, want %d and a page:\n%s", resp.Request.URL.Path, resp.StatusCode, resp.Header.Get("Content-Type"), status, body)
	}
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("%s: the page does not say %q:\n%s", resp.Request.URL.Path, w, body)
		}
	}
}

func contactValues(subject string) url.Values {
	return url.Values{"name": {"Ravi Kumar"}, "email": {"ravi@example.in"}, "phone": {"9876543210"}, "subject": {subject}, "message": {"Two loads a week\r\nfrom Pune."}}
}

// TestContactPostedWithoutJavaScript: the contact form posted to its page
// (as a browser without JavaScript sends it) is stored with its
// notification, through the same call as the script's, and answered by
// a page in the page's language; the same post sent again is stored
// once; a field the rules refuse is named on the answer, nothing stored.
func TestContactPostedWithoutJavaScript(t *testing.T) {
	a := newTestAPI(t)
	resp, body := a.formPost("/hi/contact-us", contactValues("Loads"))
	expectPage(t, resp, body, http.StatusOK, `lang="hi"`, locales.T("hi", "contact.sentTitle", nil))
	if n := a.count(`SELECT COUNT(*) FROM contact_messages WHERE subject = 'Loads' AND message = 'Two loads a week` + "\n" + `from Pune.'`); n != 1 {
		t.Errorf("%d contact messages stored, want 1 with LF line breaks", n)
	}
	resp, body = a.formPost("/hi/contact-us", contactValues("Loads"))
	expectPage(t, resp, body, http.StatusOK, locales.T("hi", "contact.sentTitle", nil))
	if n, m := a.count(`SELECT COUNT(*) FROM contact_messages`), a.count(`SELECT COUNT(*) FROM outbox`); n != 1 || m != 1 {
		t.Errorf("sent twice: %d messages and %d notifications stored, want 1 and 1", n, m)
	}

	bad := contactValues("Other")
	bad.Set("email", "not an address")
	resp, body = a.formPost("/ma/contact-us", bad)
	expectPage(t, resp, body, http.StatusBadRequest, `lang="mr"`, locales.T("ma", "forms.post.fixTitle", nil),
		"<strong>"+locales.T("ma", "contact.email", nil)+"</strong>", `href="/ma/contact-us"`)
	if n := a.count(`SELECT COUNT(*) FROM contact_messages WHERE subject = 'Other'`); n != 0 {
		t.Error("stored with a refused field")
	}

	// A message of 5000 Devanagari characters, the longest the rules
	// take, three times as long form-encoded as in JSON.
	long := contactValues("Long")
	long.Set("message", strings.Repeat("ह", 5000))
	resp, body = a.formPost("/hi/contact-us", long)
	expectPage(t, resp, body, http.StatusOK, locales.T("hi", "contact.sentTitle", nil))
	long.Set("message", strings.Repeat("ह", 12000))
	resp, body = a.formPost("/hi/contact-us", long)
	expectPage(t, resp, body, http.StatusRequestEntityTooLarge, locales.T("hi", "api.errors.tooLarge", nil))

	// A field the call does not take is refused as the JSON call refuses it.
	extra := contactValues("Extra")
	extra.Set("password", "x")
	resp, body = a.formPost("/contact-us", extra)
	expectPage(t, resp, body, http.StatusBadRequest, locales.T("en", "api.errors.badRequest", nil))
}

// TestFormPostsKeepTheCallsLimits: the posts count against the rate
// limit of their call (shared with the script's JSON calls), and a
// refusal is a page saying so, with Retry-After.
func TestFormPostsKeepTheCallsLimits(t *testing.T) {
	a := newTestAPI(t, withRates(map[string]Rate{"contact": {1, time.Minute}}))
	resp, body := a.formPost("/contact-us", contactValues("First"))
	expectPage(t, resp, body, http.StatusOK)
	resp, body = a.formPost("/contact-us", contactValues("Second"))
	expectPage(t, resp, body, http.StatusTooManyRequests, locales.T("en", "api.errors.tooManyRequests", nil))
	if resp.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After on a refusal for too many posts")
	}
	resp = a.postJSON("/api/contact_us", map[string]string{"name": "Ravi", "email": "ravi@example.in", "subject": "Third", "message": "Hi"})
	expectStatus(t, resp, http.StatusTooManyRequests)
	resp.Body.Close()
}

// TestFeedbackPostedWithoutJavaScript: the feedback form's multipart post
// with its attachment is stored, and answered in the page's language.
func TestFeedbackPostedWithoutJavaScript(t *testing.T) {
	a := newTestAPI(t)
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...)
	fields := [][2]string{{"errorType", "404"}, {"feedback", "The map\r\ndoes not load."}, {"name", "Asha Patil"}, {"email", "asha@example.in"}, {"phone", ""}}
	fields[0][1] = "" // the form's page reads the error of its address with its script only
	resp, body := a.multipartPost("/ma/feedback-form?errorType=404", fields, png)
	expectPage(t, resp, body, http.StatusOK, locales.T("ma", "feedback.success", nil))
	if n := a.count(`SELECT COUNT(*) FROM feedback WHERE error_type = '404' AND feedback = 'The map` + "\n" + `does not load.' AND attachment_id IS NOT NULL`); n != 1 {
		t.Errorf("%d feedback rows with the attachment, want 1", n)
	}
	resp, body = a.multipartPost("/ma/feedback-form", [][2]string{{"feedback", ""}, {"name", "Asha"}, {"email", "asha@example.in"}}, nil)
	expectPage(t, resp, body, http.StatusBadRequest, "<strong>"+locales.T("ma", "feedback.feedback", nil)+"</strong>")
}

// TestUnsubscribePostedWithoutJavaScript: the FAQ's message box posts
// its message alone and gets the unsubscribe form with the message in it;
// that form's post stores the opt-out with the message as its reason; a
// refused address is named and the form kept with what was typed.
func TestUnsubscribePostedWithoutJavaScript(t *testing.T) {
	a := newTestAPI(t)
	resp, body := a.formPost("/hi/unsubscribe", url.Values{"reason": {"बहुत ज़्यादा ईमेल।\r\nमहीने में एक काफ़ी है।"}})
	expectPage(t, resp, body, http.StatusOK, `<textarea id="reason" name="reason"`, ">बहुत ज़्यादा ईमेल।\nमहीने में एक काफ़ी है।</textarea>", `action="/hi/unsubscribe"`)

	resp, body = a.formPost("/hi/unsubscribe", url.Values{"emailId": {"nope"}, "reason": {"Too many"}})
	expectPage(t, resp, body, http.StatusBadRequest, "<strong>"+locales.T("hi", "unsubscribe.email", nil)+"</strong>", `value="nope"`, ">Too many</textarea>")

	resp, body = a.formPost("/hi/unsubscribe", url.Values{"emailId": {"Leaving@Example.in"}, "reason": {"बहुत ज़्यादा ईमेल।\r\nमहीने में एक काफ़ी है।"}})
	expectPage(t, resp, body, http.StatusOK, locales.T("hi", "unsubscribe.successTitle", nil))
	if n := a.count(`SELECT COUNT(*) FROM mail_opt_outs WHERE email = 'leaving@example.in' AND reason = ?`, "बहुत ज़्यादा ईमेल।\nमहीने में एक काफ़ी है।"); n != 1 {
		t.Errorf("%d opt-outs with the reason, want 1", n)
	}
}

// TestOtherFormPostsSayTheyNeedJavaScript: a post to any other page
// (sign-in, registration, a page without a form) stores nothing and
// answers a page with the provider's e-mail and phone, never a 405; a
// post without the browser's word that it comes from the site (and
// without a token) is refused as any call is, and one from another site
// too.
func TestOtherFormPostsSayTheyNeedJavaScript(t *testing.T) {
	a := newTestAPI(t)
	provider := locales.T("en", "forms.post.needsScript", map[string]string{"email": "provider@example.com", "phone": ""})
	for _, path := range []string{"/login", "/hi/registration", "/ma/reset-password", "/donate", "/standard-15-day-format", "/about-us"} {
		resp, body := a.formPost(path, url.Values{"password": {"secret"}})
		if strings.HasPrefix(path, "/hi") || strings.HasPrefix(path, "/ma") {
			lang := path[1:3]
			expectPage(t, resp, body, http.StatusOK, locales.T(lang, "forms.post.needsScriptTitle", nil), "provider@example.com")
		} else {
			expectPage(t, resp, body, http.StatusOK, provider)
		}
	}
	resp := a.do(http.MethodPost, "/contact-us", "application/x-www-form-urlencoded", strings.NewReader(contactValues("Forged").Encode()), nil)
	if body := decode[errorBody](t, resp); resp.StatusCode != http.StatusForbidden || body.Message != msgXSRF {
		t.Errorf("a post without the browser's word that it comes from the site: %d %+v, want 403 %s", resp.StatusCode, body, msgXSRF)
	}
	resp = a.do(http.MethodPost, "/contact-us", "application/x-www-form-urlencoded", strings.NewReader(contactValues("Forged").Encode()), http.Header{"Sec-Fetch-Site": {"cross-site"}})
	expectStatus(t, resp, http.StatusForbidden)
	resp.Body.Close()
	if n := a.count(`SELECT COUNT(*) FROM contact_messages`); n != 0 {
		t.Errorf("%d messages stored from refused posts", n)
	}
}
