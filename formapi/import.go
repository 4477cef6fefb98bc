package formapi

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

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
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		return importFile(w, r, func(file io.Reader, name string) error {
			rep, err := receivables.Validate(file, receivables.Options{MaxErrors: receivables.DefaultMaxErrors})
			rep.File = name
			return answerWhenRead(w, file, err, func() { writeJSON(w, http.StatusOK, rep) })
		})
	})
}

// handleImportFix writes a corrected copy of a receivables import file
// sent as the multipart field "file" (receivables.Fix: what is certain,
// nothing else) and answers it as a CSV download, its name the file's with
// "-corrected", and X-Changes saying how many changes it made. The copy
// goes to a temporary file as the upload streams in, so memory stays small
// whatever its size, and is sent once the whole upload has arrived. A file
// that cannot be corrected at all (not CSV text, a row too long to read)
// gets 422 with its report; one over 50 MB 413, as for
// /api/import/validate.
func handleImportFix() http.Handler {
	return apiHandler(func(w http.ResponseWriter, r *http.Request) error {
		return importFile(w, r, func(file io.Reader, name string) error {
			copyFile, err := os.CreateTemp("", "freightsite-fix-*.csv")
			if err != nil {
				return err
			}
			defer os.Remove(copyFile.Name())
			defer copyFile.Close()
			res, err := receivables.Fix(file, copyFile, nil)
			res.Report.File = name
			if err != nil || !res.Complete {
				return answerWhenRead(w, file, err, func() { writeJSON(w, http.StatusUnprocessableEntity, res.Report) })
			}
			size, err := copyFile.Seek(0, io.SeekCurrent)
			if err == nil {
				_, err = copyFile.Seek(0, io.SeekStart)
			}
			if err != nil {
				return err
			}
			return answerWhenRead(w, file, nil, func() {
				base := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
				if base == "" || base == "." {
					base = "receivables"
				}
				h := w.Header()
				h.Set("Content-Type", "text/csv; charset=utf-8")
				h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": base + "-corrected.csv"}))
				h.Set("Content-Length", strconv.FormatInt(size, 10))
				h.Set("X-Changes", strconv.Itoa(res.Changes))
				w.WriteHeader(http.StatusOK)
				_, _ = io.Copy(w, copyFile)
			})
		})
	})
}

// importFile finds the multipart field "file" of an import call and hands
// it to use as it streams in, at most receivables.Format.MaxFileBytes of
// it, with the name the browser gave it.
func importFile(w http.ResponseWriter, r *http.Request, use func(file io.Reader, name string) error) error {
	limit := receivables.Format.MaxFileBytes
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
			return errTooLargeImport
		case err == io.EOF:
			return badRequest(`no file: send it in the field "file"`)
		case err != nil:
			return badRequest("the upload is not valid multipart/form-data")
		}
		if part.FormName() != "file" {
			continue // NextPart skips the rest of this part
		}
		// multipart keeps only the base name
		return use(http.MaxBytesReader(w, part, limit), part.FileName())
	}
}

var errTooLargeImport = &httpError{http.StatusRequestEntityTooLarge, "the file is larger than 50 MB: split it into parts smaller than 50 MB, each starting with the heading line, and check each part", msgTooLarge}

// answerWhenRead reads the rest of the file (reading may stop early: not
// CSV, a row too long), so the browser gets the answer, not a reset, then
// answers; a file over the limit or cut off (err, the error reading it so
// far) gets its error instead.
func answerWhenRead(w http.ResponseWriter, file io.Reader, err error, answer func()) error {
	if err == nil {
		_, err = io.Copy(io.Discard, file)
	}
	var big *http.MaxBytesError
	switch {
	case errors.As(err, &big):
		return errTooLargeImport
	case err != nil:
		return badRequest("the upload was cut off before the end of the file")
	}
	answer()
	return nil
}
