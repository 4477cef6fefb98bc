package generator

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"freightsite/data"
)

// keyFigures are the counts the home page shows, read at build time from
// the files the API serves them from (GET /public_totals.json counts the
// same member profiles; its news count starts from the same seed): member
// profiles (data/members.json), news items (the build's archive) and
// languages (data/site.json). given replaces those counts or adds others
// (the members of the API's database); zero counts are left out.
func keyFigures(root string, site data.Settings, given map[string]int, newsItems int) (map[string]int, error) {
	figures := map[string]int{"languages": len(site.Languages), "newsItems": newsItems}
	for key, file := range map[string]string{"memberProfiles": "members.json"} {
		raw, err := os.ReadFile(filepath.Join(root, "data", file))
		if err != nil {
			return nil, err
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("counting data/%s: %w", file, err)
		}
		figures[key] = len(items)
	}
	for key, n := range given {
		figures[key] = n
	}
	for key, n := range figures {
		if n <= 0 {
			delete(figures, key)
		}
	}
	return figures, nil
}
