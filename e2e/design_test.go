package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Tests of the design: the header's buttons and group, card grids without
// holes, the news item's page.

// TestHeaderButtonsAndGroup: on a wide screen Sign up is a filled
// (primary) button and Login an outlined (secondary) one, at the end of
// the links; the pages about the network are a group whose summary opens
// them with the keyboard, closes with Escape (the focus back on it) and a
// click elsewhere, and opens without JavaScript too; its summary is
// marked while one of its pages is shown.
func TestHeaderButtonsAndGroup(t *testing.T) {
	for _, l := range languagesUnderTest {
		p := newPage(t, viewport(desktop.width, desktop.height))
		p.open(l.prefix + "/values")
		signUp := byRole("link", text(t, l.code, "nav.signUp"))
		login := byRole("link", text(t, l.code, "nav.login"))
		// What a sighted visitor sees: the fill of each (the header's own
		// colour is the card's), its border, where it stands.
		look := func(sel string) []string {
			return eval[[]string](p, `(() => { const a = `+sel+`, s = getComputedStyle(a), h = getComputedStyle(document.querySelector('header')), r = a.getBoundingClientRect();
  return [s.backgroundColor, h.backgroundColor, s.borderTopColor, String(Math.round(r.left)), String(Math.round(r.top)), String(Math.round(r.height))]; })()`)
		}
		s, g := look(signUp), look(login)
		if s[0] == s[1] || s[0] == "rgba(0, 0, 0, 0)" {
			t.Errorf("%s: Sign up is not filled (background %s on a header of %s)", l.code, s[0], s[1])
		}
		if g[0] != g[1] && g[0] != "rgba(0, 0, 0, 0)" {
			t.Errorf("%s: Login is filled (background %s on a header of %s), want an outline", l.code, g[0], g[1])
		}
		if g[2] == g[1] {
			t.Errorf("%s: Login has no visible border", l.code)
		}
		if s[4] != g[4] || !(atoi(g[3]) < atoi(s[3])) {
			t.Errorf("%s: Login (left %s, top %s) and Sign up (left %s, top %s) should stand side by side, Sign up last", l.code, g[3], g[4], s[3], s[4])
		}
		lastLink := eval[int](p, `Math.round(Math.max(...allByRole('link', undefined, `+byRole("navigation", text(t, l.code, "nav.label"))+`).filter(a => a !== `+signUp+` && a !== `+login+`).map(a => a.getBoundingClientRect().right)))`)
		if lastLink >= atoi(g[3]) {
			t.Errorf("%s: the buttons should follow the links (last link ends at %d, Login starts at %s)", l.code, lastLink, g[3])
		}

		// The group: closed, its summary marked on one of its pages.
		group := byRole("button", text(t, l.code, "nav.aboutGroup"))
		if _, _, props := axNode(p, group); props["expanded"] != "false" {
			t.Errorf("%s: the group's summary is not exposed as collapsed: %v", l.code, props)
		}
		values := byRole("link", text(t, l.code, "nav.values"))
		if eval[bool](p, values+` !== null`) {
			t.Errorf("%s: the group's links show while it is closed", l.code)
		}
		marked := `getComputedStyle(` + group + `).boxShadow`
		if shadow := eval[string](p, marked); shadow == "none" {
			t.Errorf("%s/values: the group's summary is not marked as holding the current page", l.code)
		}
		// The keyboard opens it, Tab reaches its links, Escape closes it.
		p.do(chromedp.Focus(locate(group)))
		p.do(chromedp.KeyEvent("\r"))
		p.waitFor(values + ` !== null`)
		if _, _, props := axNode(p, group); props["expanded"] != "true" {
			t.Errorf("%s: the open group's summary is not exposed as expanded: %v", l.code, props)
		}
		p.do(chromedp.KeyEvent("\t"))
		if got := eval[string](p, `document.activeElement.getAttribute('href')`); got != l.prefix+"/about-us" {
			t.Errorf("%s: Tab from the open group's summary reaches %q, want its first link", l.code, got)
		}
		p.do(chromedp.KeyEvent("\x1b"))
		p.waitFor(values + ` === null`)
		if !eval[bool](p, `document.activeElement === (`+group+`)`) {
			t.Errorf("%s: after Escape the focus is not on the group's summary", l.code)
		}
		// The open group floats over the page and a click elsewhere closes it.
		p.click(group)
		p.waitFor(values + ` !== null`)
		if h := eval[int](p, `Math.round(document.querySelector('header').getBoundingClientRect().height)`); h > 140 {
			t.Errorf("%s: the open group pushes the header to %d px; it should drop over the page", l.code, h)
		}
		p.do(chromedp.MouseClickXY(float64(desktop.width-40), float64(desktop.height-40)))
		p.waitFor(values + ` === null`)
		p.expectAccessible()

		// Without JavaScript the summary opens the group all the same.
		n := newPage(t, viewport(desktop.width, desktop.height), withoutJavaScript)
		n.openWithoutJavaScript(l.prefix + "/faq")
		n.click(byRole("button", text(t, l.code, "nav.aboutGroup")))
		n.waitFor(byRole("link", text(t, l.code, "nav.testimonials")) + ` !== null`)
		if got := eval[string](n, byRole("link", text(t, l.code, "nav.testimonials"))+`.getAttribute('href')`); got != l.prefix+"/testimonials" {
			t.Errorf("%s: without JavaScript the group's testimonials link leads to %q", l.code, got)
		}
	}
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// rowsOf measures a list's items as rows: for each row (items sharing a
// top edge), its count and how far its middle stands from the list's.
const rowsOf = `((list) => {
  const box = list.getBoundingClientRect(), rows = new Map();
  for (const li of list.children) {
    const r = li.getBoundingClientRect(), top = Math.round(r.top);
    const row = rows.get(top) ?? { n: 0, left: Infinity, right: -Infinity };
    row.n++; row.left = Math.min(row.left, r.left); row.right = Math.max(row.right, r.right);
    rows.set(top, row);
  }
  return [...rows.values()].map(r => [r.n, Math.round(Math.abs((r.left + r.right) / 2 - (box.left + box.right) / 2))]);
})`

// TestCardGridsHaveNoHoles: at phone, tablet, laptop and desktop widths,
// every grid of cards (services, members, values, the home page's cards,
// partners and figures) has rows of one count, and a last row that is
// full or centred.
func TestCardGridsHaveNoHoles(t *testing.T) {
	grids := `[...document.querySelectorAll('main .cards, main .figures')].map(` + rowsOf + `)`
	paths := []string{"/", "/services", "/members-profile", "/values", "/about-us", "/hi/values", "/ma/services"}
	p := newPage(t)
	for _, width := range []int64{320, 390, 600, 768, 900, 1024, 1280, 1366, 1920} {
		p.resize(screen{width, 900})
		for _, path := range paths {
			p.open(path)
			lists := eval[[][][2]int](p, grids)
			if len(lists) == 0 {
				t.Fatalf("%s: no grid of cards", path)
			}
			for i, rows := range lists {
				full := rows[0][0]
				for j, r := range rows {
					switch {
					case j < len(rows)-1 && r[0] != full:
						t.Errorf("%s, grid %d at %d px: row %d has %d cards, the first %d (a hole)", path, i+1, width, j+1, r[0], full)
					case j == len(rows)-1 && r[0] != full && r[1] > 2:
						t.Errorf("%s, grid %d at %d px: the last row's %d cards stand %d px off centre", path, i+1, width, r[0], r[1])
					}
				}
			}
		}
	}
}

// TestNewsItemPage: an item's page says the day it was posted, links its
// source where it has one (in a new tab), leads back to the feed, and
// links the items posted just after and before it by their titles, in
// the archive's order (none past either end); the links work without
// JavaScript.
func TestNewsItemPage(t *testing.T) {
	p := newPage(t)
	for _, l := range languagesUnderTest {
		p.open(l.prefix + "/news-feed")
		type item struct {
			ID     int    `json:"id"`
			Title  string `json:"newsFeedTitle"`
			URL    string `json:"newsUrl"`
			Posted string `json:"postedAt"`
		}
		items := eval[[]item](p, `fetch('/api/news?lang=`+l.code+`').then(r => r.json())`)
		if len(items) < 3 {
			t.Fatalf("%s: the test needs 3 news items, the API has %d", l.code, len(items))
		}
		var withSource int = -1
		for i, it := range items {
			if it.URL != "" && withSource < 0 {
				withSource = i
			}
		}
		if withSource < 0 {
			t.Fatalf("%s: no news item with a source to test", l.code)
		}
		neighbours := `(() => { const nav = ` + byRole("navigation", text(t, l.code, "newsDetail.more")) + `; return nav ? allByRole('link', undefined, nav).map(a => a.getAttribute('rel') + ' ' + a.getAttribute('href') + ' ' + a.querySelector('[lang]').textContent) : []; })()`
		for _, i := range []int{0, withSource, len(items) - 1} {
			it := items[i]
			path := fmt.Sprintf("%s/news-feed/news/%d", l.prefix, it.ID)
			p.open(path)
			if got := eval[string](p, byRole("heading")+`.textContent`); got != it.Title {
				t.Errorf("%s: heading %q, want %q", path, got, it.Title)
			}
			if got := eval[string](p, `document.querySelector('main article time')?.getAttribute('datetime') ?? ''`); got == "" || got[:10] != it.Posted[:10] {
				t.Errorf("%s: the article's date is %q, want the day of %s", path, got, it.Posted)
			}
			if day := eval[string](p, `document.querySelector('main article time')?.textContent ?? ''`); !strings.Contains(day, it.Posted[:4]) {
				t.Errorf("%s: the date reads %q", path, day)
			}
			source := byRole("link", text(t, l.code, "newsDetail.source")+" "+text(t, l.code, "newsFeed.newTab"))
			if it.URL != "" {
				if got := eval[string](p, source+`?.getAttribute('href') + ' ' + `+source+`?.getAttribute('target')`); got != it.URL+" _blank" {
					t.Errorf("%s: the source link is %q, want %s in a new tab", path, got, it.URL)
				}
			} else if eval[bool](p, source+` !== null`) {
				t.Errorf("%s: a source link on an item without a source", path)
			}
			if got := eval[string](p, byRole("link", text(t, l.code, "newsDetail.back"))+`?.getAttribute('href') ?? ''`); got != l.prefix+"/news-feed" {
				t.Errorf("%s: the way back leads to %q", path, got)
			}
			var want []string
			if i > 0 {
				want = append(want, fmt.Sprintf("prev %s/news-feed/news/%d %s", l.prefix, items[i-1].ID, items[i-1].Title))
			}
			if i < len(items)-1 {
				want = append(want, fmt.Sprintf("next %s/news-feed/news/%d %s", l.prefix, items[i+1].ID, items[i+1].Title))
			}
			if got := eval[[]string](p, neighbours); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: links to the items beside it\n got %q\nwant %q", path, got, want)
			}
		}
		p.expectAccessible()
	}
	// Without JavaScript, Older leads from the newest item to the next,
	// a page of its own.
	p.open("/news-feed")
	ids := eval[[]int](p, `fetch('/api/news?lang=en').then(r => r.json()).then(list => list.map(i => i.id))`)
	n := newPage(t, withoutJavaScript)
	n.openWithoutJavaScript(fmt.Sprintf("/news-feed/news/%d", ids[0]))
	older := eval[string](n, byRole("link", text(t, "en", "newsDetail.older")+" "+newsTitleOf(t, p, ids[1]))+`.getAttribute('href')`)
	if want := fmt.Sprintf("/news-feed/news/%d", ids[1]); older != want {
		t.Fatalf("without JavaScript Older leads to %q, want %s", older, want)
	}
	n.openWithoutJavaScript(older)
	if got := eval[string](n, byRole("heading")+`.textContent`); got != newsTitleOf(t, p, ids[1]) {
		t.Errorf("%s without JavaScript: heading %q", older, got)
	}
}

// newsTitleOf is the English title of news item id, as the API has it.
func newsTitleOf(t *testing.T, p *page, id int) string {
	t.Helper()
	return eval[string](p, fmt.Sprintf(`fetch('/api/news/%d?lang=en').then(r => r.json()).then(i => i.newsFeedTitle)`, id))
}

// TestMemberBlocksLineUp: on a phone the home page's members are a list
// of one width (not centred rows of different widths), and on a desktop
// a member page's two columns (the photo and the company card, the
// contact card) end on one line.
func TestMemberBlocksLineUp(t *testing.T) {
	p := newPage(t, viewport(phone.width, phone.height))
	for _, l := range languagesUnderTest {
		p.open(l.prefix + "/")
		region := byRole("region", text(t, l.code, "home.membersTitle"))
		widths := eval[[]int](p, `allByRole('link', undefined, `+region+`).filter(a => nameOf(a) !== `+jsString(text(t, l.code, "home.membersLink"))+`).map(a => Math.round(a.getBoundingClientRect().width))`)
		if len(widths) < 2 {
			t.Fatalf("%s: the home page lists %d members", l.code, len(widths))
		}
		for _, w := range widths {
			if w != widths[0] {
				t.Errorf("%s: on a %d px phone the members' links are %v px wide, want one width", l.code, phone.width, widths)
				break
			}
		}
	}
	d := newPage(t, viewport(1280, 800))
	d.open("/member-details-" + firstMember(t))
	bottom := func(name string) string {
		return `Math.round(` + byRole("region", name) + `.getBoundingClientRect().bottom)`
	}
	bottoms := eval[[]int](d, `[`+bottom(text(t, "en", "memberDetails.company"))+`, `+bottom(text(t, "en", "memberDetails.contact"))+`]`)
	if bottoms[0] != bottoms[1] {
		t.Errorf("%s: the company card ends at %d px, the contact card beside it at %d px", d.location(), bottoms[0], bottoms[1])
	}
}
