package formapi

import (
	"bytes"
	"maps"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// File contents by their real type (the first bytes are what counts).
var (
	pngBytes  = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 64)...)
	gifBytes  = append([]byte("GIF89a"), make([]byte, 64)...)
	jpegBytes = append([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), make([]byte, 64)...)
	pdfBytes  = []byte("%PDF-1.7\n1 0 obj << >> endobj\n%%EOF\n")
	exeBytes  = append([]byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff"), make([]byte, 64)...)
)

type attachmentPart struct {
	name string
	data []byte
}

// multipartBody builds a feedback form as a browser sends it.
func multipartBody(t testing.TB, fields map[string]string, file *attachmentPart) ([]byte, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		w.WriteField(k, fields[k])
	}
	if file != nil {
		fw, err := w.CreateFormFile("attachment", file.name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(file.data)
	}
	w.Close()
	return b.Bytes(), w.FormDataContentType()
}

func validFeedback() map[string]string {
	return map[string]string{"feedback": "The news page did not load on my phone.", "name": "Sunita Rao", "email": "sunita@example.in", "phone": "9876543210", "errorType": "404"}
}

func (a *testAPI) postFeedback(fields map[string]string, file *attachmentPart) *http.Response {
	a.t.Helper()
	body, ct := multipartBody(a.t, fields, file)
	return a.post("/api/error_feedback", ct, body)
}

func TestFeedbackStoresAttachmentAndQueuesNotification(t *testing.T) {
	a := newTestAPI(t, unlimited())
	resp := a.postFeedback(validFeedback(), &attachmentPart{"screen shot.png", pngBytes})
	expectStatus(t, resp, http.StatusOK)
	if got := decode[feedbackAnswer](t, resp); got.Status != "success" {
		t.Errorf("answer %+v", got)
	}
	var name, errorType, attName, attType string
	var size int
	a.store.TestQueryRow(`SELECT f.name, f.error_type, a.name, a.media_type, length(a.data) FROM feedback f JOIN attachments a ON a.id = f.attachment_id`).Scan(&name, &errorType, &attName, &attType, &size)
	if name != "Sunita Rao" || errorType != "404" || attName != "screen shot.png" || attType != "image/png" || size != len(pngBytes) {
		t.Errorf("stored %q %q %q %q %d bytes", name, errorType, attName, attType, size)
	}
	if n := a.count(`SELECT COUNT(*) FROM outbox o JOIN feedback f ON f.attachment_id = o.attachment_id WHERE o.subject LIKE 'Feedback (error 404)%'`); n != 1 {
		t.Errorf("%d notifications carrying the attachment, want 1", n)
	}
	// Without an attachment (the browser sends an empty file part).
	expectStatus(t, a.postFeedback(validFeedback(), &attachmentPart{"", nil}), http.StatusOK)
	if n := a.count(`SELECT COUNT(*) FROM feedback WHERE attachment_id IS NULL`); n != 1 {
		t.Errorf("%d feedback rows without attachment, want 1", n)
	}
}

// TestFeedbackRules: one row per rule of SPEC §5 (feedback).
func TestFeedbackRules(t *testing.T) {
	a := newTestAPI(t, unlimited())
	for _, c := range []struct{ rule, field, value, message string }{
		{"feedback is required", "feedback", " ", "feedback.errors.feedbackRequired"},
		{"feedback is at most 10000 characters", "feedback", strings.Repeat("f", 10001), "feedback.errors.feedbackTooLong"},
		{"name is required", "name", "", "forms.nameRequired"},
		{"name cannot be numeric", "name", "Sunita 2", "forms.nameNotNumeric"},
		{"email is required", "email", "", "forms.emailRequired"},
		{"email has at least 3 characters", "email", "@a", "forms.emailTooShort"},
		{"email must be valid", "email", "sunita at example.in", "forms.emailInvalid"},
		{"phone should be numeric", "phone", "98765x3210", "forms.phoneNumeric"},
		{"phone has exactly 10 digits", "phone", "987654321", "forms.phoneTenDigits"},
	} {
		t.Run(c.rule, func(t *testing.T) {
			f := validFeedback()
			f[c.field] = c.value
			resp := a.postFeedback(f, nil)
			expectStatus(t, resp, http.StatusBadRequest)
			got := decode[feedbackAnswer](t, resp)
			if got.Status != "failed" || len(got.ErrorMessageList) != 1 || got.ErrorMessageList[0] != (fieldError{c.field, c.message}) {
				t.Errorf("answer %+v, want {%s %s}", got, c.field, c.message)
			}
		})
	}
	t.Run("phone is optional and a Devanagari name is letters", func(t *testing.T) {
		f := validFeedback()
		f["phone"], f["name"] = "", "सुनीता राव"
		expectStatus(t, a.postFeedback(f, nil), http.StatusOK)
	})
}

func TestFeedbackAttachmentChecks(t *testing.T) {
	a := newTestAPI(t, unlimited())
	for _, ok := range []attachmentPart{{"a.gif", gifBytes}, {"photo.jpeg", jpegBytes}, {"invoice.pdf", pdfBytes}, {"exactly-5MB.png", append(pngBytes, make([]byte, maxAttachment-len(pngBytes))...)}} {
		t.Run("accepts "+ok.name, func(t *testing.T) {
			expectStatus(t, a.postFeedback(validFeedback(), &ok), http.StatusOK)
		})
	}
	for _, c := range []struct {
		name   string
		file   attachmentPart
		status int
		want   string
	}{
		{"a renamed .exe posing as .png", attachmentPart{"cat.png", exeBytes}, http.StatusUnsupportedMediaType, "only PNG, GIF, JPEG and PDF"},
		{"an HTML file posing as .jpg", attachmentPart{"x.jpg", []byte("<html><script>alert(1)</script></html>")}, http.StatusUnsupportedMediaType, "only PNG, GIF, JPEG and PDF"},
		{"one byte over 5,000,000", attachmentPart{"big.png", append(pngBytes, make([]byte, maxAttachment+1-len(pngBytes))...)}, http.StatusRequestEntityTooLarge, "exceeds 5000000 bytes"},
	} {
		t.Run("refuses "+c.name, func(t *testing.T) {
			before := a.count(`SELECT COUNT(*) FROM feedback`)
			expectJSONError(t, a.postFeedback(validFeedback(), &c.file), c.status, c.want)
			if after := a.count(`SELECT COUNT(*) FROM feedback`); after != before {
				t.Error("a refused upload was stored")
			}
		})
	}
}

func TestFeedbackRefusesBadRequests(t *testing.T) {
	a := newTestAPI(t, unlimited())
	body, ct := multipartBody(t, validFeedback(), nil)
	unknown, unknownCT := multipartBody(t, map[string]string{"feedback": "x", "admin": "1"}, nil)
	badType, badTypeCT := multipartBody(t, map[string]string{"feedback": "x", "errorType": "<script>"}, nil)
	for _, c := range []struct {
		name, contentType string
		body              []byte
		status            int
		want              string
	}{
		{"JSON instead of multipart", "application/json", []byte(`{"feedback":"x"}`), http.StatusUnsupportedMediaType, "multipart/form-data"},
		{"multipart without its boundary", "multipart/form-data", body, http.StatusBadRequest, "boundary"},
		{"a body cut off inside a field", ct, body[:bytes.Index(body, []byte("did not load"))], http.StatusBadRequest, "malformed"},
		{"an unknown field", unknownCT, unknown, http.StatusBadRequest, `unknown field "admin"`},
		{"an HTML errorType", badTypeCT, badType, http.StatusBadRequest, "errorType"},
		{"an oversized body", ct, append(body, make([]byte, feedbackBodyLimit)...), http.StatusRequestEntityTooLarge, "exceeds"},
	} {
		t.Run(c.name, func(t *testing.T) {
			expectJSONError(t, a.post("/api/error_feedback", c.contentType, c.body), c.status, c.want)
		})
	}
	if n := a.count(`SELECT COUNT(*) FROM feedback`) + a.count(`SELECT COUNT(*) FROM outbox`); n != 0 {
		t.Errorf("refused requests wrote %d rows", n)
	}
}

func TestFeedbackStoresInjectionStringsInert(t *testing.T) {
	a := newTestAPI(t, unlimited())
	for _, s := range injections {
		f := validFeedback()
		f["feedback"] = s
		expectStatus(t, a.postFeedback(f, nil), http.StatusOK)
		var got string
		a.store.TestQueryRow(`SELECT feedback FROM feedback ORDER BY id DESC LIMIT 1`).Scan(&got)
		if got != s {
			t.Errorf("stored %q, want %q", got, s)
		}
	}
}
