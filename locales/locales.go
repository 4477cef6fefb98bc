// Package locales embeds the site's translations (the i18next files beside
// this one) for the texts the Go side writes itself: the members' page the
// API serves and the mail it sends. The generator publishes the same files
// to the browser. It also keeps the translators' review record
// (reviewed.json: which English each translation follows); glossary.json
// and the package's tests hold the translations to one vocabulary.
package locales

import (
	"embed"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"freightsite/data"
)

//go:embed ??.json
var files embed.FS

var (
	once  sync.Once
	texts map[string]map[string]any
)

func load() {
	texts = map[string]map[string]any{}
	for _, l := range data.Site().Languages {
		lang := l.Code
		raw, err := files.ReadFile(lang + ".json")
		if err != nil {
			panic(err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			panic("locales/" + lang + ".json: " + err.Error())
		}
		texts[lang] = m
	}
}

// Translations are the codes of data/site.json's languages but the first:
// the default language, whose texts the others translate.
func Translations() []string {
	var out []string
	for _, l := range data.Site().Languages[1:] {
		out = append(out, l.Code)
	}
	return out
}

var placeholder = regexp.MustCompile(`\{\{\s*([\w.]+)\s*\}\}`)

// N returns the text of key for a count, as i18next picks plurals:
// key_one or key_other by the language's plural rule (CLDR: Hindi counts 0
// and 1 as one, English and Marathi only 1), with {{count}} filled.
func N(lang, key string, count int) string {
	form := "_other"
	if count == 1 || (count == 0 && lang == "hi") {
		form = "_one"
	}
	return T(lang, key+form, map[string]string{"count": strconv.Itoa(count)})
}

// T returns the text of key ("member.title") in lang (a code of data/site.json;
// any other is the default language) with {{name}} placeholders filled from vars, as
// i18next does; a missing key gives the key itself.
func T(lang, key string, vars map[string]string) string {
	once.Do(load)
	root, ok := texts[lang]
	if !ok {
		root = texts[data.Site().Languages[0].Code]
	}
	var node any = root
	for _, part := range strings.Split(key, ".") {
		m, ok := node.(map[string]any)
		if !ok {
			return key
		}
		node = m[part]
	}
	s, ok := node.(string)
	if !ok {
		return key
	}
	return placeholder.ReplaceAllStringFunc(s, func(whole string) string {
		if v, ok := vars[placeholder.FindStringSubmatch(whole)[1]]; ok {
			return v
		}
		return whole
	})
}
