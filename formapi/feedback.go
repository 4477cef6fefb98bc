package formapi

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"freightsite/data"
)

// maxAttachment is the largest feedback attachment (SPEC §9).
const maxAttachment = 5_000_000

// maxFieldBytes bounds one text part of the feedback form.
const maxFieldBytes = 64 << 10

// attachmentTypes are the file types feedback accepts, by what
// http.DetectContentType finds in the file's first bytes (never its name).
var attachmentTypes = map[string]string{"image/png": ".png", "image/gif": ".gif", "image/jpeg": ".jpg", "application/pdf": ".pdf"}

var errorTypePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{0,20}$`)

// feedbackAnswer is what the feedback call answers; the site uses only
// success or failure (SPEC §7), field errors are there for other clients.
type feedbackAnswer struct {
	Status           string       `json:"status"`
	ErrorMessageList []fieldError `json:"errorMessageList,omitempty"`
}

type upload struct {
	name, mediaType string
	data            []byte
}

// handleFeedback stores feedback with its optional attachment and queues
// the provider's notification in the same transaction
// (POST /api/error_feedback, multipart), once per Idempotency-Key
// (idempotency.go).
func handleFeedback(store *Store, rules formRules, provider data.Provider, now func() time.Time) http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		if err := requireMediaType(r, "multipart/form-data"); err != nil {
			return err
		}
		fields, file, err := readFeedback(r, rules)
		if err != nil {
			return err
		}
		if errs := rules.validate(fields); len(errs) > 0 {
			writeJSON(w, http.StatusBadRequest, feedbackAnswer{Status: "failed", ErrorMessageList: errs})
			return nil
		}
		var data []byte
		if file != nil {
			data = file.data
		}
		sub := submissionOf(r, fields, data)
		at := now()
		var answer kept
		err = store.write(r.Context(), func(tx *sql.Tx) error {
			if done, err := sub.claim(tx, at, &answer); done || err != nil {
				return err // done: stored before, answered as then
			}
			var attachment any
			var attachmentID int64
			if file != nil {
				if err := tx.QueryRow(`INSERT INTO attachments (name, media_type, data) VALUES (?, ?, ?) RETURNING id`, file.name, file.mediaType, file.data).Scan(&attachmentID); err != nil {
					return err
				}
				attachment = attachmentID
			}
			if _, err := tx.Exec(`INSERT INTO feedback (created_at, name, email, phone, feedback, error_type, attachment_id) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				timestamp(at), fields["name"], fields["email"], fields["phone"], fields["feedback"], fields["errorType"], attachment); err != nil {
				return err
			}
			subject := "Feedback"
			if fields["errorType"] != "" {
				subject += " (error " + fields["errorType"] + ")"
			}
			if err := queueMail(tx, outgoing{
				kind:         MailNotification,
				to:           provider.Email,
				replyTo:      fields["email"],
				subject:      subject + " from " + fields["name"],
				body:         fmt.Sprintf("A visitor sent feedback.\n\nName: %s\nE-mail: %s\nPhone: %s\nError type: %s\n\n%s\n", fields["name"], fields["email"], fields["phone"], fields["errorType"], fields["feedback"]),
				attachmentID: attachmentID,
			}, at); err != nil {
				return err
			}
			answer = keptJSON(http.StatusOK, feedbackAnswer{Status: "success"})
			return sub.remember(tx, answer)
		})
		if err != nil {
			return err
		}
		answer.send(w)
		return nil
	})
}

// readFeedback streams the multipart body: text fields of the form plus
// errorType, and at most one attachment of at most maxAttachment bytes
// whose content is PNG, GIF, JPEG or PDF.
func readFeedback(r *http.Request, rules formRules) (map[string]string, *upload, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, nil, badRequest("the body must be multipart/form-data with a boundary: " + err.Error())
	}
	fields := map[string]string{}
	var file *upload
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return nil, nil, err
			}
			return nil, nil, badRequest("the multipart body is malformed: " + err.Error())
		}
		name := part.FormName()
		switch {
		case name == "attachment":
			if file != nil {
				return nil, nil, badRequest("only one attachment may be sent")
			}
			if file, err = readAttachment(part); err != nil {
				return nil, nil, err
			}
		case rules.has(name) || name == "errorType":
			if _, dup := fields[name]; dup {
				return nil, nil, badRequest(fmt.Sprintf("field %q is sent twice", name))
			}
			b, err := io.ReadAll(io.LimitReader(part, maxFieldBytes+1))
			if err != nil {
				return nil, nil, readPartError(err)
			}
			if len(b) > maxFieldBytes {
				return nil, nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("field %q exceeds %d bytes", name, maxFieldBytes), msgTooLarge}
			}
			if err := checkText(name, string(b)); err != nil {
				return nil, nil, err
			}
			fields[name] = string(b)
		default:
			return nil, nil, badRequest(fmt.Sprintf("unknown field %q", name))
		}
	}
	if !errorTypePattern.MatchString(fields["errorType"]) {
		return nil, nil, badRequest("errorType must be up to 20 letters, digits, '-' or '_' (such as 404)")
	}
	return fields, file, nil
}

func readAttachment(part *multipart.Part) (*upload, error) {
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
	return &upload{name: attachmentName(part.FileName(), ext), mediaType: mediaType, data: data}, nil
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
