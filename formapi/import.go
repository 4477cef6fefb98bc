package formapi

import (
	"errors"
	"io"
	"net/http"

	"freightsite/receivables"
)

// multipartSlack is what a request may carry besides the file itself:
// part headers, boundaries and small fields.
const multipartSlack = 64 << 10

// handleImportValidate checks a receivables import file sent as the
// multipart field "file" and answers its report (the JSON of
// receivables.Report, valid or not, with status 200). The file is
// validated as it streams in, so memory stays small whatever its size; a
// file over receivables.Format.MaxFileBytes (50 MB: the feedback upload's
// 5 MB scaled up) gets 413. The route gives it an upload's time
// (limitUploadRate).
func handleImportValidate() http.Handler {
	limit := receivables.Format.MaxFileBytes
	tooLarge := &httpError{http.StatusRequestEntityTooLarge, "the file is larger than 50 MB: split it into parts smaller than 50 MB, each starting with the heading line, and check each part", msgTooLarge}
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		r.Body = http.MaxBytesReader(w, r.Body, limit+multipartSlack)
		parts, err := r.MultipartReader()
		if err != nil {
			return badRequest(`send the file as multipart/form-data in the field "file"`)
		}
		for {
			part, err := parts.NextPart()
			var big *http.MaxBytesError
			switch {
			case errors.As(err, &big):
				return tooLarge
			case err == io.EOF:
				return badRequest(`no file: send it in the field "file"`)
			case err != nil:
				return badRequest("the upload is not valid multipart/form-data")
			}
			if part.FormName() != "file" {
				continue // NextPart skips the rest of this part
			}
			file := http.MaxBytesReader(w, part, limit)
			rep, err := receivables.Validate(file, receivables.Options{MaxErrors: receivables.DefaultMaxErrors})
			if err == nil {
				// Validation may stop early (not CSV, a row too long); read
				// the rest so the browser gets the answer, not a reset.
				_, err = io.Copy(io.Discard, file)
			}
			switch {
			case errors.As(err, &big):
				return tooLarge
			case err != nil:
				return badRequest("the upload was cut off before the end of the file")
			}
			rep.File = part.FileName() // multipart keeps only the base name
			writeJSON(w, http.StatusOK, rep)
			return nil
		}
	})
}
