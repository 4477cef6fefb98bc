package generator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/evanw/esbuild/pkg/api"

	"freightsite/internal/plaintext"
)

// ErrUnknownSetting is returned when Options.Settings names a setting
// site.json does not have.
var ErrUnknownSetting = errors.New("unknown setting")

// ErrInvalidSetting is returned when an Options.Settings value holds a
// character pages must not show: a control, a line break or an invisible
// format character (internal/plaintext).
var ErrInvalidSetting = errors.New("invalid setting")

// overrideSettings returns site.json with some of its text settings
// replaced, each named by its dotted path ("payment.donationURL"). Only
// settings the file already has can be replaced, so a typo fails the build
// instead of being ignored.
func overrideSettings(raw []byte, set map[string]string) ([]byte, error) {
	if len(set) == 0 {
		return raw, nil
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("reading site.json: %w", err)
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if err := plaintext.CheckLine(set[key]); err != nil {
			return nil, fmt.Errorf("%w %q: %w", ErrInvalidSetting, key, err)
		}
		parts := strings.Split(key, ".")
		node := doc
		for _, part := range parts[:len(parts)-1] {
			next, ok := node[part].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%w %q: site.json has no object %q", ErrUnknownSetting, key, part)
			}
			node = next
		}
		last := parts[len(parts)-1]
		if _, ok := node[last].(string); !ok {
			return nil, fmt.Errorf("%w %q: site.json has no text setting %q there", ErrUnknownSetting, key, last)
		}
		node[last] = set[key]
	}
	return json.MarshalIndent(doc, "", "  ")
}

// settingsPlugin makes every import of data/site.json in the bundles read
// the build's settings (site.json with the --set overrides), so pages,
// islands and the headers of one build always agree.
func settingsPlugin(file string, contents []byte) api.Plugin {
	text := string(contents)
	return api.Plugin{
		Name: "site-settings",
		Setup: func(b api.PluginBuild) {
			b.OnLoad(api.OnLoadOptions{Filter: "^" + regexp.QuoteMeta(file) + "$"}, func(api.OnLoadArgs) (api.OnLoadResult, error) {
				return api.OnLoadResult{Contents: &text, Loader: api.LoaderJSON}, nil
			})
		},
	}
}
