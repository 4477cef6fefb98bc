package formapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"freightsite/data"
	"freightsite/internal/mail"
	"freightsite/internal/store"
)

// maxAttachment is the largest feedback attachment (SPEC §9).
const maxAttachment = 5_000_000

// maxFieldBytes bounds one text part of the feedback form.
const maxFieldBytes = 64 << 10

// attachmentTypes are the file types feedback accepts, by what
// http.DetectContentType finds in the file's first bytes (never its name).
var attachmentTypes = map[string]string{"image/png": ".png", "image/gif": ".gif", "image/jpeg": ".jpg", "application/pdf": ".pdf"}

var errorTypePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{0,20}$`)

// feedbackRequest is the body of POST /api/error_feedback (multipart,
// beside the attachment); errorType names the error page it was sent
// from, if any.
type feedbackRequest struct {
	Feedback  string `json:"feedback"`
	Name      string `json:"name"`
	Email     string `json:"email"`
	Phone     string `json:"phone"`
	ErrorType string `json:"errorType"`
}

func (f feedbackRequest) validate(rules formRules) []fieldError { return rules.check(f) }

// feedbackAnswer is what the feedback call answers; the site uses only
// success or failure (SPEC §7), field errors are there for other clients.
type feedbackAnswer struct {
	Status           string       `json:"status"`
	ErrorMessageList []fieldError `json:"errorMessageList,omitempty"`
}

// handleFeedback stores feedback with its optional attachment and queues
// the provider's notification in the same transaction
// (POST /api/error_feedback, multipart), once per Idempotency-Key
// (idempotency.go).
func handleFeedback(s *store.Store, rules formRules, provider data.Provider, now func() time.Time) http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		if err := requireMediaType(r, "multipart/form-data"); err != nil {
			return err
		}
		f, sent, file, err := readFeedback(r)
		if err != nil {
			return err
		}
		if errs := f.validate(rules); len(errs) > 0 {
			writeJSON(w, http.StatusBadRequest, feedbackAnswer{Status: "failed", ErrorMessageList: errs})
			return nil
		}
		var data []byte
		if file != nil {
			data = file.Data
		}
		at := now()
		answer, err := storeOnce(r.Context(), s, submissionOf(r, sent, data), at, func(tx *store.Tx) (kept, error) {
			attachmentID, err := tx.AddFeedback(at, store.Feedback{Name: f.Name, Email: f.Email, Phone: f.Phone, Feedback: f.Feedback, ErrorType: f.ErrorType}, file)
			if err != nil {
				return kept{}, err
			}
			subject := "Feedback"
			if f.ErrorType != "" {
				subject += " (error " + f.ErrorType + ")"
			}
			err = mail.Queue(tx, mail.Outgoing{
				Kind:         mail.Notification,
				To:           provider.Email,
				ReplyTo:      f.Email,
				Subject:      subject + " from " + f.Name,
				Body:         fmt.Sprintf("A visitor sent feedback.\n\nName: %s\nE-mail: %s\nPhone: %s\nError type: %s\n\n%s\n", f.Name, f.Email, f.Phone, f.ErrorType, f.Feedback),
				AttachmentID: attachmentID,
			}, at)
			return keptJSON(http.StatusOK, feedbackAnswer{Status: "success"}), err
		})
		if err != nil {
			return err
		}
		answer.send(w)
		return nil
	})
}

// readFeedback streams the multipart body: the text fields of
// feedbackRequest, which it returns with the fields as sent, and at most
// one attachment of at most maxAttachment bytes whose content is PNG, GIF,
// JPEG or PDF.
func readFeedback(r *http.Request) (feedbackRequest, map[string]string, *store.Attachment, error) {
	var f feedbackRequest
	mr, err := r.MultipartReader()
	if err != nil {
		return f, nil, nil, badRequest("the body must be multipart/form-data with a boundary: " + err.Error())
	}
	names := requestFields(reflect.TypeFor[feedbackRequest]())
	fields := map[string]string{}
	var file *store.Attachment
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return f, nil, nil, err
			}
			return f, nil, nil, badRequest("the multipart body is malformed: " + err.Error())
		}
		name := part.FormName()
		switch {
		case name == "attachment":
			if file != nil {
				return f, nil, nil, badRequest("only one attachment may be sent")
			}
			if file, err = readAttachment(part); err != nil {
				return f, nil, nil, err
			}
		case slices.Contains(names, name):
			if _, dup := fields[name]; dup {
				return f, nil, nil, badRequest(fmt.Sprintf("field %q is sent twice", name))
			}
			b, err := io.ReadAll(io.LimitReader(part, maxFieldBytes+1))
			if err != nil {
				return f, nil, nil, readPartError(err)
			}
			if len(b) > maxFieldBytes {
				return f, nil, nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("field %q exceeds %d bytes", name, maxFieldBytes), msgTooLarge}
			}
			if err := checkText(name, string(b)); err != nil {
				return f, nil, nil, err
			}
			fields[name] = string(b)
		default:
			return f, nil, nil, badRequest(fmt.Sprintf("unknown field %q", name))
		}
	}
	if !errorTypePattern.MatchString(fields["errorType"]) {
		return f, nil, nil, badRequest("errorType must be up to 20 letters, digits, '-' or '_' (such as 404)")
	}
	fill(&f, fields)
	return f, fields, file, nil
}

func readAttachment(part *multipart.Part) (*store.Attachment, error) {
	data, err := io.ReadAll(io.LimitReader(part, maxAttachment+1))
	if err != nil {
		return nil, readPartError(err)
	}
	if len(data) == 0 && part.FileName() == "" {
		return nil, nil // the browser sends an empty part when no file was chosen
	}
	if len(data) > maxAttachment {
		return nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("the attachment exceeds %d bytes", maxAttachment), "feedback.errors.fileTooLarge"}
	}
	mediaType := http.DetectContentType(data)
	ext, ok := attachmentTypes[mediaType]
	if !ok {
		return nil, &httpError{http.StatusUnsupportedMediaType, fmt.Sprintf("the attachment's content is %s; only PNG, GIF, JPEG and PDF files are accepted, whatever their name", mediaType), "feedback.errors.fileType"}
	}
	return &store.Attachment{Name: attachmentName(part.FileName(), ext), MediaType: mediaType, Data: data}, nil
}

// attachmentName keeps the visitor's file name (base name only, safe
// characters) with the extension of the detected type.
func attachmentName(name, ext string) string {
	base := strings.TrimSuffix(filepath.Base(strings.ReplaceAll(name, `\`, "/")), filepath.Ext(name))
	var b bytes.Buffer
	for _, c := range base {
		if c == '-' || c == '_' || c == ' ' || c == '.' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') {
			b.WriteRune(c)
		}
	}
	clean := strings.Trim(b.String(), " .")
	if clean == "" || len(clean) > 80 {
		clean = "attachment"
	}
	return clean + ext
}

func readPartError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return err
	}
	return badRequest("the multipart body is malformed: " + err.Error())
}
