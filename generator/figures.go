package generator

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"freightsite/data"
)

// keyFigures are the counts the home page shows as proof of the network,
// read at build time: members (given: the member accounts of the API's
// database, build --db), the states and cities the members of
// data/members.json serve, the routes they run (memberProfiles.*.routes
// of the default language's texts, "A – B, C – D") and the years since
// copyrightStartYear. Only the figures data/site.json's keyFigures.show
// names are kept, each from its minimum there: a figure that small would
// undercut the claims above it.
func keyFigures(root string, site data.Settings, given map[string]int, year int) (map[string]int, error) {
	raw, err := os.ReadFile(filepath.Join(root, "data", "members.json"))
	if err != nil {
		return nil, err
	}
	var members []struct {
		Slug   string   `json:"slug"`
		Cities []string `json:"cities"`
		States []string `json:"states"`
	}
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, fmt.Errorf("reading data/members.json: %w", err)
	}
	texts := filepath.Join(root, "locales", site.Languages[0].Code+".json")
	if raw, err = os.ReadFile(texts); err != nil {
		return nil, err
	}
	var locale struct {
		Profiles map[string]struct {
			Routes string `json:"routes"`
		} `json:"memberProfiles"`
	}
	if err := json.Unmarshal(raw, &locale); err != nil {
		return nil, fmt.Errorf("reading %s: %w", texts, err)
	}
	cities, states, routes := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, m := range members {
		for _, c := range m.Cities {
			cities[strings.ToLower(strings.TrimSpace(c))] = true
		}
		for _, s := range m.States {
			states[strings.ToUpper(strings.TrimSpace(s))] = true
		}
		for _, r := range strings.Split(locale.Profiles[m.Slug].Routes, ",") {
			if r = strings.TrimSpace(r); r != "" {
				routes[r] = true
			}
		}
	}
	counts := map[string]int{"states": len(states), "cities": len(cities), "routes": len(routes)}
	if site.CopyrightStartYear > 0 {
		counts["years"] = year - site.CopyrightStartYear
	}
	for key, n := range given {
		counts[key] = n
	}
	figures := map[string]int{}
	for key, n := range counts {
		if n > 0 && n >= site.KeyFigures.Minimum[key] && slices.Contains(site.KeyFigures.Show, key) {
			figures[key] = n
		}
	}
	return figures, nil
}
