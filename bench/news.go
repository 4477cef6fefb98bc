package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// newsItems is a JSON array of n news items in the format of
// data/news.json, like the seed's in length (a title of 60 to 90
// characters, 250 to 400 of content), one a day going back from now; every
// fifth mentions a corridor, which the search run looks for.
func newsItems(n int) []byte {
	rng := rand.New(rand.NewPCG(6, 6))
	cities := []string{"Pune", "Nagpur", "Indore", "Ludhiana", "Kolkata", "Nashik", "Surat", "Vizag", "Raipur", "Kochi", "Jaipur", "Guwahati"}
	topics := []string{"diesel prices", "toll rates", "e-way bills", "truck parking", "monsoon closures", "port congestion", "rail sidings", "driver rest stops"}
	sentences := []string{
		"Transporters on the lane report shorter waits at the state border since the new checkpost opened.",
		"Members say return loads are easier to find when they post trucks a day ahead on the load board.",
		"The association expects rates to hold steady through the festival season despite higher demand.",
		"Shippers asked for digital lorry receipts so settlements can close within the fifteen-day window.",
		"Fleet owners with fewer than ten trucks make up most of the network's new registrations this quarter.",
		"Officials promised to publish the revised schedule on the ministry's portal before the end of the month.",
		"Drivers welcomed the new rest area with parking for two hundred trucks, clean toilets and a canteen.",
	}
	type item struct {
		Title    string    `json:"newsFeedTitle"`
		Content  string    `json:"content"`
		URL      string    `json:"newsUrl,omitempty"`
		Redirect bool      `json:"redirectToSource"`
		Posted   time.Time `json:"postedAt"`
	}
	items := make([]item, n)
	now := time.Now().UTC().Truncate(time.Minute)
	for i := range items {
		from, to := cities[rng.IntN(len(cities))], cities[rng.IntN(len(cities))]
		topic := topics[rng.IntN(len(topics))]
		title := fmt.Sprintf("%s–%s freight: what changing %s mean for members this week", from, to, topic)
		if i%5 == 0 {
			title = fmt.Sprintf("Freight corridor from %s to %s: %s under review", from, to, topic)
		}
		var content strings.Builder
		for content.Len() < 250+rng.IntN(150) {
			content.WriteString(sentences[rng.IntN(len(sentences))] + " ")
		}
		items[i] = item{Title: title, Content: strings.TrimSpace(content.String()), Posted: now.Add(-time.Duration(i+1) * 24 * time.Hour)}
		if i%7 == 0 {
			items[i].URL, items[i].Redirect = fmt.Sprintf("https://news.example.in/freight/%d", i), true
		}
	}
	b, _ := json.Marshal(items)
	return b
}
