package formapi

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"

	"freightsite/data"
	"freightsite/locales"
)

// Form posts (issue 33): every form of the site is a POST, so nothing a
// visitor types ever lands in an address, a history or a log, even when
// the page's script has not run (turned off, blocked, or still loading on
// a slow phone). A form posts to its page's own address (the contact
// form of every page to its language's /contact-us), and a POST to a
// path the API does not own comes here: the router's not-found handler
// under serve, and deploy/nginx.conf hands such a POST to the API.
//
// Contact, feedback and unsubscribe work without the script: their
// fields go to the very handlers the script calls (the same body and
// rate limits, validation and storage), with an Idempotency-Key made
// from what was sent, so a post the browser sends again (a reload of the
// answer) is stored once. The answer is a page in the language of the
// address: sent, or which field to fix. Any other address answers a page
// saying its form needs JavaScript, with the provider's e-mail and phone;
// nothing of the post is read or kept.
//
// Anti-forgery: a prerendered page cannot hold a visitor's own token, so
// a form post cannot echo the XSRF-TOKEN cookie as the script does.
// protectXSRF takes it without, on the browser's word that it comes from
// a page of this site: Sec-Fetch-Site (same-origin), or an Origin naming
// this host (both checked against the host by CrossOriginProtection
// first). A post that carries neither (not a browser, or one too old to
// say) and no token is refused as any call is.

// formPosts answers the POSTs to the site's pages.
type formPosts struct {
	site     siteInfo
	provider data.Provider
	// The JSON calls the forms' scripts make, as routed (routes.go).
	contact, feedback, unsubscribe http.Handler
	unsubscribeRules               formRules
}

// The pages whose forms work without the script, by path without the
// language prefix.
const (
	contactPage     = "/contact-us"
	feedbackPage    = "/feedback-form"
	unsubscribePage = "/unsubscribe"
)

// formPostLimit is the largest form-encoded post: a form encodes each
// byte of text that is not ASCII as three (%E0%A4%B9), so a contact
// message of Devanagari at its longest takes nearly three times the
// JSON call's limit.
const formPostLimit = 3 * formBodyLimit

func (f formPosts) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	lang, path := f.site.split(r.URL.Path)
	a := answerPage{site: f.site, provider: f.provider, lang: lang, form: f.site.prefix(lang) + path}
	limit := int64(formPostLimit)
	if path == feedbackPage {
		limit = feedbackBodyLimit
	}
	if r.ContentLength > limit {
		a.failed(w, r, &http.MaxBytesError{Limit: limit})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	switch {
	case path == contactPage:
		got, err := callJSON[contactRequest](f.contact, w, r)
		a.outcome(w, r, got, err, "contact", "contact.sentTitle", "contact.sentText")
	case path == feedbackPage:
		got, err := callMultipart(f.feedback, w, r, map[string]string{"errorType": r.URL.Query().Get("errorType")})
		a.outcome(w, r, got, err, "feedback", "feedback.success", "")
	case path == unsubscribePage:
		f.postUnsubscribe(w, r, a)
	default:
		a.write(w, http.StatusOK, "forms.post.needsScriptTitle", "bad", a.t("forms.post.needsScript", nil))
	}
}

// fromThisSite: the browser says a request comes from a page of this
// site (CrossOriginProtection has refused any other site before).
func fromThisSite(r *http.Request) bool {
	return r.Header.Get("Sec-Fetch-Site") != "" || r.Header.Get("Origin") != ""
}

// outcome answers the page of a contact or feedback post's outcome:
// what its call answered, or err when the post could not be read; labels
// is the locales prefix of the form's field labels.
func (a answerPage) outcome(w http.ResponseWriter, r *http.Request, got *captured, err error, labels, sentTitle, sentText string) {
	if err != nil {
		a.failed(w, r, err)
		return
	}
	var body struct {
		Message          string
		ErrorMessageList []fieldError
	}
	_ = json.Unmarshal(got.body.Bytes(), &body)
	switch {
	case got.status == http.StatusOK:
		a.write(w, http.StatusOK, sentTitle, "ok", a.t(sentText, nil))
	case len(body.ErrorMessageList) > 0:
		a.fix(w, labels, body.ErrorMessageList)
	default:
		a.refused(w, got, body.Message)
	}
}

// postUnsubscribe: the FAQ's message box posts its message alone (a
// reason, no address), and gets the unsubscribe form with the message in
// it; the form posts the address and the message, and gets the outcome.
func (f formPosts) postUnsubscribe(w http.ResponseWriter, r *http.Request, a answerPage) {
	if err := r.ParseForm(); err == nil && !r.PostForm.Has("emailId") {
		u, err := decodeForm[unsubscribeRequest](r)
		if err != nil {
			a.failed(w, r, err)
			return
		}
		a.unsubscribeForm(w, http.StatusOK, "", normalizeLines(u.Reason), nil)
		return
	}
	got, err := callJSON[unsubscribeRequest](f.unsubscribe, w, r)
	if err != nil {
		a.failed(w, r, err)
		return
	}
	u, _ := decodeForm[unsubscribeRequest](r) // read already: callJSON took it
	switch text := strings.TrimSpace(got.body.String()); {
	case got.status == http.StatusOK && text == "success":
		a.write(w, http.StatusOK, "unsubscribe.successTitle", "ok", a.t("unsubscribe.successText", map[string]string{"name": f.site.name}), a.t("unsubscribe.successNote", nil))
	case got.status == http.StatusBadRequest && !strings.HasPrefix(text, "{"):
		a.unsubscribeForm(w, http.StatusBadRequest, u.EmailID, normalizeLines(u.Reason), u.validate(f.unsubscribeRules))
	default:
		var body errorBody
		_ = json.Unmarshal(got.body.Bytes(), &body)
		a.refused(w, got, body.Message)
	}
}

// captured is the answer of a JSON call made for a form post.
type captured struct {
	w      http.ResponseWriter
	header http.Header
	status int
	body   bytes.Buffer
}

func (c *captured) Header() http.Header { return c.header }
func (c *captured) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}
func (c *captured) Write(b []byte) (int, error) {
	c.WriteHeader(http.StatusOK)
	return c.body.Write(b)
}

// Unwrap lets the call's deadlines reach the connection (upload rates).
func (c *captured) Unwrap() http.ResponseWriter { return c.w }

// call sends body to a JSON call as the script would, with an
// Idempotency-Key made from the page's path and the body.
func call(h http.Handler, w http.ResponseWriter, r *http.Request, contentType string, body []byte) *captured {
	in := r.Clone(r.Context())
	in.Body = io.NopCloser(bytes.NewReader(body))
	in.Form, in.PostForm, in.MultipartForm = nil, nil, nil // read afresh from body
	in.ContentLength = int64(len(body))
	in.Header.Set("Content-Type", contentType)
	sum := sha256.Sum256(append([]byte(r.URL.Path+"\n"), body...))
	in.Header.Set(idempotencyHeader, hex.EncodeToString(sum[:]))
	got := &captured{w: w, header: http.Header{}}
	h.ServeHTTP(got, in)
	if got.status == 0 {
		got.status = http.StatusOK
	}
	return got
}

// callJSON reads a form-encoded post into a T (decodeForm: the fields of
// the JSON call, each once) and sends it as JSON.
func callJSON[T any](h http.Handler, w http.ResponseWriter, r *http.Request) (*captured, error) {
	if err := requireMediaType(r, "application/x-www-form-urlencoded"); err != nil {
		return nil, err
	}
	req, err := decodeForm[T](r)
	if err != nil {
		return nil, err
	}
	fields := fieldsOf(req)
	for name, v := range fields {
		fields[name] = normalizeLines(v)
	}
	body, _ := json.Marshal(fields)
	return call(h, w, r, "application/json", body), nil
}

// formBoundary separates the parts of a multipart post sent on to its
// call: one boundary, so the same post makes the same body (and key).
const formBoundary = "freightsite-form-post"

// callMultipart sends a multipart post (the feedback form) on to its
// call, its text fields' line breaks as the script sends them, and a
// field sent empty as given in defaults (the errorType of the page's
// address, which only the script reads into the form).
func callMultipart(h http.Handler, w http.ResponseWriter, r *http.Request, defaults map[string]string) (*captured, error) {
	if err := requireMediaType(r, "multipart/form-data"); err != nil {
		return nil, err
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, badRequest("the body must be multipart/form-data with a boundary: " + err.Error())
	}
	var body bytes.Buffer
	out := multipart.NewWriter(&body)
	_ = out.SetBoundary(formBoundary)
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, readPartError(err)
		}
		b, err := io.ReadAll(part)
		if err != nil {
			return nil, readPartError(err)
		}
		if part.FileName() == "" {
			b = []byte(cmp.Or(normalizeLines(string(b)), defaults[part.FormName()]))
		}
		header := textproto.MIMEHeader{"Content-Disposition": part.Header.Values("Content-Disposition")}
		if ct := part.Header.Get("Content-Type"); ct != "" {
			header.Set("Content-Type", ct)
		}
		dst, _ := out.CreatePart(header)
		_, _ = dst.Write(b)
	}
	_ = out.Close()
	return call(h, w, r, out.FormDataContentType(), body.Bytes()), nil
}

// normalizeLines turns a form's CR LF line breaks into the LF the
// script sends.
func normalizeLines(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// split is a path's language and the path without its prefix.
func (s siteInfo) split(path string) (lang, rest string) {
	for _, l := range s.languages[1:] {
		if path == l.Prefix || strings.HasPrefix(path, l.Prefix+"/") {
			return l.Code, strings.TrimPrefix(path, l.Prefix)
		}
	}
	return s.languages[0].Code, path
}

// answerPage is the page a form post is answered with.
type answerPage struct {
	site     siteInfo
	provider data.Provider
	lang     string
	form     string // the address of the form's page
}

func (a answerPage) t(key string, vars map[string]string) string {
	if key == "" {
		return ""
	}
	if vars == nil {
		vars = map[string]string{}
	}
	vars["email"], vars["phone"] = a.provider.Email, a.provider.Phone
	return locales.T(a.lang, key, vars)
}

// answer is what an answer page shows: a notice (kind ok or bad) with
// its heading and lines, the fields to fix, and the unsubscribe form.
type answer struct {
	Kind, Heading string // Kind "" shows the lines as the page's lead
	Lines         []string
	Fields        []labelledError
	Unsubscribe   *unsubscribeForm
	Back, BackTo  string
	Contact       string
}

type labelledError struct{ Label, Message string }

type unsubscribeForm struct {
	Action, Email, Reason               string
	EmailLabel, ReasonLabel, ReasonHint string
	Button                              string
}

var answerTemplate = pageTemplate(`<h1>{{.Title}}</h1>
{{with .Data}}{{if .Kind}}<div class="notice {{.Kind}}" role="{{if eq .Kind "ok"}}status{{else}}alert{{end}}">
{{range .Lines}}{{if .}}<p>{{.}}</p>{{end}}{{end}}
{{with .Fields}}<ul class="fields-to-fix">{{range .}}<li><strong>{{.Label}}</strong>: {{.Message}}</li>{{end}}</ul>{{end}}
</div>{{else}}{{range .Lines}}<p class="lead">{{.}}</p>{{end}}{{end}}
{{with .Unsubscribe}}<form class="form narrow-form" method="post" action="{{.Action}}">
<div class="field"><label for="emailId">{{.EmailLabel}}</label><input id="emailId" name="emailId" type="email" autocomplete="email" value="{{.Email}}"></div>
<div class="field"><label for="reason">{{.ReasonLabel}}</label><p class="field-hint" id="reason-hint">{{.ReasonHint}}</p><textarea id="reason" name="reason" rows="4" aria-describedby="reason-hint">{{.Reason}}</textarea></div>
<button type="submit" class="button">{{.Button}}</button>
</form>{{end}}
{{with .Contact}}<p>{{.}}</p>{{end}}
{{with .Back}}<p><a class="button secondary" href="{{.}}">{{$.Data.BackTo}}</a></p>{{end}}{{end}}`)

// write answers a page with a notice.
func (a answerPage) write(w http.ResponseWriter, status int, heading, kind string, lines ...string) {
	a.writeAnswer(w, status, answer{Kind: kind, Heading: a.t(heading, nil), Lines: lines})
}

func (a answerPage) writeAnswer(w http.ResponseWriter, status int, d answer) {
	switch d.Kind {
	case "ok":
		d.Back, d.BackTo = cmp.Or(a.site.prefix(a.lang), "/"), a.t("nav.home", nil)
	case "bad":
		d.Back, d.BackTo = a.form, a.t("forms.post.back", nil)
	}
	if d.Unsubscribe != nil {
		d.Back = ""
	}
	p := a.site.newPage(a.lang, d.Heading, "form-answer", "")
	p.Data = d
	_ = writePage(w, status, answerTemplate, p)
}

// fix answers the fields to fix, by their labels (labels.<field>).
func (a answerPage) fix(w http.ResponseWriter, labels string, errs []fieldError) {
	d := answer{Kind: "bad", Heading: a.t("forms.post.fixTitle", nil), Contact: a.t("forms.post.contact", nil)}
	for _, e := range errs {
		d.Fields = append(d.Fields, labelledError{a.t(labels+"."+e.Field, nil), a.t(e.Message, nil)})
	}
	a.writeAnswer(w, http.StatusBadRequest, d)
}

// refused answers a call's refusal (too many posts, a body too large,
// the database down: its status and message, Retry-After kept).
func (a answerPage) refused(w http.ResponseWriter, got *captured, message string) {
	if ra := got.header.Get("Retry-After"); ra != "" {
		w.Header().Set("Retry-After", ra)
	}
	if message == "" {
		message = msgInternal
	}
	a.writeAnswer(w, got.status, answer{Kind: "bad", Heading: a.t("forms.post.failedTitle", nil), Lines: []string{a.t(message, nil)}, Contact: a.t("forms.post.contact", nil)})
}

// failed answers a post that could not be read, as writeError would but
// as a page.
func (a answerPage) failed(w http.ResponseWriter, r *http.Request, err error) {
	got := &captured{w: w, header: http.Header{}}
	writeError(got, r, err)
	var body errorBody
	_ = json.Unmarshal(got.body.Bytes(), &body)
	a.refused(w, got, body.Message)
}

// unsubscribeForm answers the unsubscribe form, with the address and
// message given and the errors of its fields.
func (a answerPage) unsubscribeForm(w http.ResponseWriter, status int, email, reason string, errs []fieldError) {
	d := answer{Heading: a.t("unsubscribe.title", nil), Lines: []string{a.t("unsubscribe.intro", nil)}, Unsubscribe: &unsubscribeForm{
		Action: a.form, Email: email, Reason: reason,
		EmailLabel: a.t("unsubscribe.email", nil), ReasonLabel: a.t("faq.messageLabel", nil), ReasonHint: a.t("forms.post.reasonHint", nil),
		Button: a.t("unsubscribe.button", nil),
	}}
	if len(errs) > 0 {
		d.Kind, d.Heading, d.Lines, d.Contact = "bad", a.t("forms.post.fixTitle", nil), nil, a.t("forms.post.contact", nil)
		labels := map[string]string{"emailId": "unsubscribe.email", "reason": "faq.messageLabel"}
		for _, e := range errs {
			d.Fields = append(d.Fields, labelledError{a.t(labels[e.Field], nil), a.t(e.Message, nil)})
		}
	}
	a.writeAnswer(w, status, d)
}
