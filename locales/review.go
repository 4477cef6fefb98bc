package locales

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ReviewFile is the file beside the translations that records, for every
// key of every translation language, a hash of the English text the
// translation was last reviewed against. When en.json changes a text, its
// hash no longer matches and the translations are flagged until a
// translator updates them and records them again (MarkReviewed).
const ReviewFile = "reviewed.json"

const reviewComment = "For each key of each translation: the hash of the en.json text it was reviewed against. " +
	"Written by `go run . locales reviewed` (docs/translations.md); do not edit by hand."

// EnglishHash is the review record of an English text: the first 12 hex
// digits of its SHA-256, enough to notice any change.
func EnglishHash(english string) string {
	sum := sha256.Sum256([]byte(english))
	return hex.EncodeToString(sum[:6])
}

// ReadTexts reads dir/<lang>.json as a flat map of dotted keys to texts.
func ReadTexts(dir, lang string) (map[string]string, error) {
	raw, err := os.ReadFile(filepath.Join(dir, lang+".json"))
	if err != nil {
		return nil, err
	}
	var tree map[string]any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, fmt.Errorf("reading %s.json: %w", lang, err)
	}
	texts := map[string]string{}
	flatten("", tree, texts)
	return texts, nil
}

func flatten(prefix string, tree map[string]any, out map[string]string) {
	for k, v := range tree {
		switch v := v.(type) {
		case map[string]any:
			flatten(prefix+k+".", v, out)
		case string:
			out[prefix+k] = v
		}
	}
}

// Review holds ReviewFile: language -> key -> EnglishHash.
type Review map[string]map[string]string

// ReadReview reads dir's ReviewFile; a missing file is an empty review.
func ReadReview(dir string) (Review, error) {
	raw, err := os.ReadFile(filepath.Join(dir, ReviewFile))
	if errors.Is(err, fs.ErrNotExist) {
		return Review{}, nil
	}
	if err != nil {
		return nil, err
	}
	var file map[string]json.RawMessage
	if err := json.Unmarshal(raw, &file); err != nil {
		return nil, fmt.Errorf("reading %s: %w", ReviewFile, err)
	}
	r := Review{}
	for lang, body := range file {
		if strings.HasPrefix(lang, "$") {
			continue
		}
		m := map[string]string{}
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, fmt.Errorf("reading %s, %q: %w", ReviewFile, lang, err)
		}
		r[lang] = m
	}
	return r, nil
}

// write saves the review with sorted keys, one per line, so that branches
// adding different keys merge without conflicts in most cases.
func (r Review) write(dir string) error {
	file := map[string]any{"$comment": reviewComment}
	for lang, m := range r {
		file[lang] = m
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(file); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ReviewFile), b.Bytes(), 0o644)
}

// Unreviewed is a translated text whose English changed since it was
// reviewed, or that was never recorded as reviewed.
type Unreviewed struct {
	Lang, Key string
	English   string // the English text now
	New       bool   // no record at all (a new key), rather than a changed English text
}

// CheckReview lists the texts of langs in dir that need a translator's
// review, in key order, and the recorded keys en.json no longer has.
func CheckReview(dir string, langs []string) (pending []Unreviewed, stale []string, err error) {
	en, err := ReadTexts(dir, "en")
	if err != nil {
		return nil, nil, err
	}
	review, err := ReadReview(dir)
	if err != nil {
		return nil, nil, err
	}
	keys := sortedKeys(en)
	for _, lang := range langs {
		for _, k := range keys {
			switch h, ok := review[lang][k]; {
			case !ok:
				pending = append(pending, Unreviewed{Lang: lang, Key: k, English: en[k], New: true})
			case h != EnglishHash(en[k]):
				pending = append(pending, Unreviewed{Lang: lang, Key: k, English: en[k]})
			}
		}
		for _, k := range sortedKeys(review[lang]) {
			if _, ok := en[k]; !ok {
				stale = append(stale, lang+" "+k)
			}
		}
	}
	return pending, stale, nil
}

// MarkReviewed records the texts of langs named by keys (a key, or a
// namespace such as "faq.items" for every key under it) as reviewed
// against today's English, plus, with unrecorded, every key that has no
// record yet. It drops records of keys en.json no longer has and returns
// the keys it recorded per language.
func MarkReviewed(dir string, langs, keys []string, unrecorded bool) (map[string][]string, error) {
	en, err := ReadTexts(dir, "en")
	if err != nil {
		return nil, err
	}
	review, err := ReadReview(dir)
	if err != nil {
		return nil, err
	}
	named := map[string]bool{}
	for _, k := range keys {
		found := false
		for ek := range en {
			if ek == k || strings.HasPrefix(ek, k+".") {
				named[ek], found = true, true
			}
		}
		if !found {
			return nil, fmt.Errorf("en.json has no text or namespace %q", k)
		}
	}
	marked := map[string][]string{}
	for _, lang := range langs {
		texts, err := ReadTexts(dir, lang)
		if err != nil {
			return nil, err
		}
		if review[lang] == nil {
			review[lang] = map[string]string{}
		}
		rec := review[lang]
		for k := range rec {
			if _, ok := en[k]; !ok {
				delete(rec, k)
			}
		}
		for _, k := range sortedKeys(en) {
			_, recorded := rec[k]
			if !named[k] && (recorded || !unrecorded) {
				continue
			}
			if _, ok := texts[k]; !ok {
				return nil, fmt.Errorf("%s.json has no text %s: translate it first", lang, k)
			}
			if h := EnglishHash(en[k]); rec[k] != h {
				rec[k] = h
				marked[lang] = append(marked[lang], k)
			}
		}
	}
	return marked, review.write(dir)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
