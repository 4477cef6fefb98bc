package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
)

// Browser tests of the public content screens: counts, initial
// states and toggles, the FAQ's unsubscribe link, member profiles, the
// app's QR code and the donation form against a stand-in payment provider.

// paymentProvider stands in for the card payment provider: the site under
// test is built with its endpoints (build --set), so the donation form
// posts here and the tests see exactly what a provider would receive.
var paymentProvider = startPaymentProvider()

type providerPost struct {
	path string
	form url.Values
}

type stubProvider struct {
	srv   *httptest.Server
	posts chan providerPost
}

func startPaymentProvider() *stubProvider {
	s := &stubProvider{posts: make(chan providerPost, 8)}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.posts <- providerPost{r.URL.Path, r.PostForm}
		fmt.Fprint(w, `<!doctype html><html lang="en"><title>Card payment provider</title><h1>Payment provider</h1>`)
	}))
	buildArgs = append(buildArgs,
		"--set", "payment.donationURL="+s.srv.URL+"/donate",
		"--set", "payment.subscriptionURL="+s.srv.URL+"/subscribe")
	return s
}

// next waits for the next form the provider receives.
func (s *stubProvider) next(t *testing.T) providerPost {
	t.Helper()
	select {
	case p := <-s.posts:
		return p
	case <-time.After(15 * time.Second):
		t.Fatal("the payment provider received no form")
		return providerPost{}
	}
}

// expectNothing fails if a form arrives within a short while.
func (s *stubProvider) expectNothing(t *testing.T, why string) {
	t.Helper()
	select {
	case p := <-s.posts:
		t.Errorf("%s: the provider received %s %v", why, p.path, p.form)
	case <-time.After(700 * time.Millisecond):
	}
}

// texts reads a locale's text by dotted key, filling {{name}} placeholders.
var (
	localesOnce sync.Once
	locales     map[string]map[string]any
)

func text(t *testing.T, lang, key string, vars ...string) string {
	t.Helper()
	localesOnce.Do(func() {
		locales = map[string]map[string]any{}
		for _, l := range []string{"en", "hi", "ma"} {
			raw, err := os.ReadFile(filepath.Join(root, "locales", l+".json"))
			if err != nil {
				panic(err)
			}
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil {
				panic(err)
			}
			locales[l] = m
		}
	})
	var node any = locales[lang]
	for _, part := range strings.Split(key, ".") {
		m, _ := node.(map[string]any)
		node = m[part]
	}
	s, ok := node.(string)
	if !ok {
		t.Fatalf("locales/%s.json has no text %s", lang, key)
	}
	for i := 0; i+1 < len(vars); i += 2 {
		s = strings.ReplaceAll(s, "{{"+vars[i]+"}}", vars[i+1])
	}
	return s
}

// languagesUnderTest pairs each language code with its URL prefix.
var languagesUnderTest = []struct{ code, prefix string }{{"en", ""}, {"hi", "/hi"}, {"ma", "/ma"}}

// axNode is what assistive technology sees of the element sel names (a
// finder expression or a CSS selector, see locate): its role, name and
// states such as expanded (props, which also hold its accessible
// description as "description").
func axNode(p *page, sel string) (role, name string, props map[string]string) {
	p.t.Helper()
	nodes, err := chromedp.Run(p.ctx, chromedp.Nodes(locate(sel)))
	if err != nil || len(nodes) == 0 {
		p.t.Fatalf("no element %s: %v", sel, err)
	}
	fetch := false
	res, err := chromedp.Call(p.ctx, accessibility.GetPartialAXTree, accessibility.GetPartialAXTreeParams{BackendNodeID: nodes[0].BackendNodeID, FetchRelatives: &fetch})
	if err != nil || len(res.Nodes) == 0 {
		p.t.Fatalf("accessibility node of %s: %v", sel, err)
	}
	// Values are JSON: "name", true, 3.
	str := func(v *accessibility.Value) string {
		var x any
		if v == nil || json.Unmarshal(v.Value, &x) != nil {
			return ""
		}
		return fmt.Sprint(x)
	}
	n := res.Nodes[0]
	props = map[string]string{}
	for _, prop := range n.Properties {
		props[string(prop.Name)] = str(prop.Value)
	}
	props["description"] = str(n.Description)
	return str(n.Role), str(n.Name), props
}

func TestContentCounts(t *testing.T) {
	p := newPage(t)
	for _, l := range languagesUnderTest {
		T := func(key string) string { return text(t, l.code, key) }
		// list is an expression: the items of the list in the region (a
		// section) named name.
		list := func(name string) string { return `allByRole('listitem', undefined, ` + byRole("region", name) + `)` }
		counts := []struct {
			path, what, list string
			want             int
		}{
			{"/faq", "questions", faqQuestions, 13},
			{"/values", "values", list(T("values.title")), 11},
			{"/services", "services", list(T("services.title")), 6},
			{"/members-profile", "links to a member's page", `allByRole('link', undefined, byRole('main')).filter(a => a.getAttribute('href').startsWith('` + l.prefix + `/member-details-'))`, 5},
			{"/about-us", "partner networks", list(T("aboutUs.partnersTitle")), 3},
		}
		for _, c := range counts {
			p.open(l.prefix + c.path)
			if got := eval[int](p, c.list+`.length`); got != c.want {
				t.Errorf("%s%s: %d %s, want %d", l.prefix, c.path, got, c.what, c.want)
			}
		}
		p.open(l.prefix + "/about-us")
		if got := eval[string](p, `byRole('link', undefined, `+byRole("region", T("aboutUs.signUpTitle"))+`).getAttribute('href')`); got != l.prefix+"/registration" {
			t.Errorf("%s/about-us: sign-up link %q", l.prefix, got)
		}
	}
}

// faqQuestions are the FAQ's questions, each a <details> (a group named by
// its question) in the page's main part.
const faqQuestions = `allByRole('group', undefined, byRole('main'))`

// faqSign says what the plus/minus of question i shows (the decoration of
// its summary, hidden from assistive technology, which reads the summary's
// expanded state instead): "minus" when its vertical bar is hidden, "plus"
// when it shows.
const faqSign = `(i) => getComputedStyle(byRole('button', undefined, ` + faqQuestions + `[i]).querySelector('[aria-hidden="true"]'), '::after').display === 'none' ? 'minus' : 'plus'`

// textShown and textHidden say of a <details> (a group) whether the text
// it collapses, its paragraphs, can be read: hidden needs them there.
const (
	textShown  = `(g => byRole('paragraph', undefined, g) !== null)`
	textHidden = `(g => g.querySelector('p') !== null && byRole('paragraph', undefined, g) === null)`
)

func TestFAQTogglesStartExpanded(t *testing.T) {
	p := newPage(t, viewport(360, 740))
	p.open("/faq")
	if n := eval[int](p, faqQuestions+`.filter(d => d.open).length`); n != 13 {
		t.Errorf("%d of 13 questions start expanded", n)
	}
	if signs := eval[[]string](p, faqQuestions+`.map((_, i) => (`+faqSign+`)(i))`); slices.ContainsFunc(signs, func(s string) bool { return s != "minus" }) {
		t.Errorf("signs of expanded questions: %v, want all minus", signs)
	}
	second := faqQuestions + `[1]`
	summary := `byRole('button', undefined, ` + second + `)`
	role, name, props := axNode(p, summary)
	if props["expanded"] != "true" || !strings.Contains(name, text(t, "en", "faq.items.who.question")) {
		t.Errorf("second question to assistive technology: role %s, name %q, %v; want expanded and named by the question", role, name, props)
	}

	// A click collapses a question and turns its sign into a plus.
	p.click(summary)
	if eval[bool](p, second+`.open`) {
		t.Fatal("clicking the second question did not collapse it")
	}
	if got := eval[string](p, `(`+faqSign+`)(1)`); got != "plus" {
		t.Errorf("collapsed question shows %s", got)
	}
	if hidden := eval[bool](p, textHidden+`(`+second+`)`); !hidden {
		t.Error("the collapsed answer is still visible")
	}
	if _, _, props := axNode(p, summary); props["expanded"] != "false" {
		t.Errorf("collapsed question is expanded=%q to assistive technology", props["expanded"])
	}
	if got := eval[string](p, `(`+faqSign+`)(0)`); got != "minus" {
		t.Errorf("the first question changed too: %s", got)
	}
	p.screenshot("faq-collapsed-one-360")

	// The keyboard opens it again.
	p.do(chromedp.Focus(locate(summary)), chromedp.KeyEvent(kb.Enter))
	if !eval[bool](p, second+`.open`) || eval[string](p, `(`+faqSign+`)(1)`) != "minus" {
		t.Error("Enter on the collapsed question did not expand it with a minus sign")
	}
	if wide := eval[[]string](p, overflowing); len(wide) > 0 {
		t.Errorf("FAQ wider than a 360 px screen: %v", wide)
	}
}

func TestFAQUnsubscribeKeepsTheLanguage(t *testing.T) {
	for _, l := range languagesUnderTest {
		p := newPage(t, acceptLanguage("en"))
		p.open(l.prefix + "/faq")
		last := faqQuestions + `.at(-1)`
		textarea := `byRole('textbox', undefined, ` + last + `)`
		if got := eval[int](p, `allByRole('textbox', undefined, `+last+`).length`); got != 1 {
			t.Fatalf("%s/faq: %d textareas in the last answer", l.prefix, got)
		}
		if label := eval[string](p, textarea+`.labels[0]?.textContent ?? ''`); label != text(t, l.code, "faq.messageLabel") {
			t.Errorf("%s/faq: textarea label %q", l.prefix, label)
		}
		// The message box and the button are a form going to the relative
		// ./unsubscribe of SPEC §2, posting (its message in no address).
		form := `(` + textarea + `).form`
		if action := eval[string](p, form+`.getAttribute('action') + ' ' + `+form+`.method`); action != "./unsubscribe post" {
			t.Errorf("%s/faq: the unsubscribe form goes to %q, want ./unsubscribe post", l.prefix, action)
		}
		button := byRole("button", text(t, l.code, "faq.unsubscribe"))
		p.do(chromedp.SendKeys(locate(textarea), "Too many e-mails"))
		p.click(button)
		p.answered(text(t, l.code, "unsubscribe.title"))
		if got := p.location(); got != l.prefix+"/unsubscribe" {
			t.Errorf("Unsubscribe on %s/faq led to %s, want %s/unsubscribe", l.prefix, got, l.prefix)
		}
		p.expectNoConsoleErrors()
	}
}

func TestReadMoreStartsCollapsedAndToggles(t *testing.T) {
	for _, l := range languagesUnderTest {
		for _, path := range []string{"/about-us", "/testimonials"} {
			p := newPage(t, viewport(360, 740))
			p.open(l.prefix + path)
			where := l.prefix + path
			// The collapsed text: the first <details> (a group) of the
			// page's main part.
			readMore := `byRole('group', undefined, byRole('main'))`
			summary := `byRole('button', undefined, ` + readMore + `)`
			if eval[bool](p, readMore+`.open`) {
				t.Fatalf("%s: the long text starts expanded", where)
			}
			if got := eval[string](p, summary+`.innerText.trim()`); got != text(t, l.code, "readMore.more") {
				t.Errorf("%s: collapsed toggle reads %q", where, got)
			}
			if !eval[bool](p, textHidden+`(`+readMore+`)`) {
				t.Errorf("%s: the collapsed text is visible", where)
			}
			p.click(summary)
			if !eval[bool](p, readMore+`.open`) || !eval[bool](p, textShown+`(`+readMore+`)`) {
				t.Fatalf("%s: Read more did not show the text", where)
			}
			if got := eval[string](p, summary+`.innerText.trim()`); got != text(t, l.code, "readMore.less") {
				t.Errorf("%s: expanded toggle reads %q", where, got)
			}
			if _, name, props := axNode(p, summary); props["expanded"] != "true" || name != text(t, l.code, "readMore.less") {
				t.Errorf("%s: expanded toggle to assistive technology: %q %v", where, name, props)
			}
			if wide := eval[[]string](p, overflowing); len(wide) > 0 {
				t.Errorf("%s expanded: wider than a 360 px screen: %v", where, wide)
			}
			p.expectAccessible()
			p.screenshot(strings.ReplaceAll(strings.TrimPrefix(where, "/"), "/", "_") + "-expanded-phone")
			p.click(summary)
			if eval[bool](p, readMore+`.open`) {
				t.Errorf("%s: Read less did not collapse the text", where)
			}
		}
	}
}

func TestTestimonialHasFiveStars(t *testing.T) {
	p := newPage(t)
	for _, l := range languagesUnderTest {
		p.open(l.prefix + "/testimonials")
		if n := eval[int](p, `allByRole('figure', undefined, byRole('main')).length`); n != 1 {
			t.Errorf("%s: %d testimonials, want 1", l.prefix, n)
		}
		// The stars as they show: the element on screen that reads ★★★★★.
		stars := byText("★★★★★")
		role, name, _ := axNode(p, stars)
		if want := text(t, l.code, "testimonials.rating", "stars", "5", "max", "5"); role != "image" || name != want {
			t.Errorf("%s: stars are %s %q to assistive technology, want image %q", l.prefix, role, name, want)
		}
		if got := eval[string](p, `(`+stars+`)?.textContent ?? ''`); got != "★★★★★" {
			t.Errorf("%s: stars %q", l.prefix, got)
		}
	}
	if got := text(t, "en", "testimonials.rating", "stars", "5", "max", "5"); got != "5 out of 5 stars" {
		t.Errorf("English rating text %q", got)
	}
}

type memberFacts struct {
	Slug, Name, Owner, Phone, Email, URL string
	// Translations are the names in Hindi and Marathi (Devanagari).
	Translations map[string]struct{ Name, Owner string }
}

// in is the member's name and owner as a page in lang shows them.
func (m memberFacts) in(lang string) (name, owner string) {
	if tr, ok := m.Translations[lang]; ok {
		return tr.Name, tr.Owner
	}
	return m.Name, m.Owner
}

// latin matches Latin letters: on Hindi and Marathi pages, names and
// addresses drawn from data/ must be written in Devanagari.
var latin = regexp.MustCompile(`[A-Za-z]`)

func readMembers(t *testing.T) []memberFacts {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "data", "members.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ms []memberFacts
	if err := json.Unmarshal(raw, &ms); err != nil {
		t.Fatal(err)
	}
	return ms
}

// TestDataInThePagesLanguage: what the pages draw from data/ (the
// provider's address, member names) reads in the page's language, and the
// testimonial names its author as her profile does.
func TestDataInThePagesLanguage(t *testing.T) {
	var site struct {
		Provider struct {
			Address      string
			Translations map[string]struct{ Address string }
		}
	}
	raw, err := os.ReadFile(filepath.Join(root, "data", "site.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &site); err != nil {
		t.Fatal(err)
	}
	var deccan memberFacts
	for _, m := range readMembers(t) {
		if m.Slug == "deccan-cargo-movers" {
			deccan = m
		}
	}
	for _, l := range languagesUnderTest {
		address := site.Provider.Address
		if tr, ok := site.Provider.Translations[l.code]; ok {
			address = tr.Address
		}
		if l.code != "en" && latin.MatchString(address) {
			t.Errorf("%s: data/site.json's address %q is not in Devanagari", l.code, address)
		}
		p := newPage(t)
		p.open(l.prefix + "/contact-us")
		if got := eval[string](p, `byRole('definition', undefined, `+byRole("complementary", text(t, l.code, "contactUs.office"))+`).textContent`); got != address {
			t.Errorf("%s/contact-us: address %q, want %q", l.prefix, got, address)
		}
		p.open(l.prefix + "/privacy-policy")
		if got := eval[string](p, `document.querySelector('main').textContent`); !strings.Contains(got, address) {
			t.Errorf("%s/privacy-policy does not give the address as %q", l.prefix, address)
		}
		_, owner := deccan.in(l.code)
		home := l.prefix
		if home == "" {
			home = "/"
		}
		for _, path := range []string{home, l.prefix + "/testimonials"} {
			p.open(path)
			// The quote: the figure of the main part that holds a
			// blockquote; its caption names the author.
			quote := `allByRole('figure', undefined, byRole('main')).find(f => byRole('blockquote', undefined, f))`
			if !eval[bool](p, `byText(`+jsString(owner)+`, `+quote+`.querySelector('figcaption')) !== null`) {
				t.Errorf("%s: the testimonial's caption %q does not name her %q, as her profile does", path, eval[string](p, quote+`.querySelector('figcaption').textContent`), owner)
			}
		}
	}
}

func TestMemberProfilesShowAllNineFacts(t *testing.T) {
	members := readMembers(t)
	if len(members) != 5 {
		t.Fatalf("data/members.json has %d members, want 5", len(members))
	}
	for _, l := range languagesUnderTest {
		p := newPage(t)
		p.open(l.prefix + "/members-profile")
		var want []string
		for _, m := range members {
			want = append(want, l.prefix+"/member-details-"+m.Slug)
		}
		// The members' links: the links of the list of the page's main part.
		memberLinks := `allByRole('link', undefined, byRole('list', undefined, byRole('main')))`
		if got := eval[[]string](p, memberLinks+`.map(a => a.getAttribute('href'))`); !slices.Equal(got, want) {
			t.Errorf("%s/members-profile links %v, want %v", l.prefix, got, want)
		}
		var names []string
		for _, m := range members {
			name, _ := m.in(l.code)
			names = append(names, name)
		}
		if got := eval[[]string](p, memberLinks+`.map(a => a.textContent)`); !slices.Equal(got, names) {
			t.Errorf("%s/members-profile names %v, want %v", l.prefix, got, names)
		}
		for i, m := range members {
			p.open(l.prefix + "/members-profile")
			p.follow(fmt.Sprintf("%s[%d]", memberLinks, i))
			where := p.location()
			if where != want[i] {
				t.Errorf("member link %d led to %s", i+1, where)
			}
			name, owner := m.in(l.code)
			if h1 := eval[string](p, `document.querySelector('main h1').textContent`); h1 != name {
				t.Errorf("%s: heading %q, want %q", where, h1, name)
			}
			if title := eval[string](p, `document.title`); !strings.HasPrefix(title, name+" |") {
				t.Errorf("%s: title %q, want it to start with %q", where, title, name)
			}
			if l.code != "en" && (latin.MatchString(name) || latin.MatchString(owner)) {
				t.Errorf("%s: the member's name %q or owner %q is not in Devanagari", where, name, owner)
			}
			profile := func(field string) string { return text(t, l.code, "memberProfiles."+m.Slug+"."+field) }
			if !eval[bool](p, `byText(`+jsString(profile("description"))+`, byRole('main')) !== null`) {
				t.Errorf("%s: no description %q", where, profile("description"))
			}
			facts := eval[[][2]string](p, `allByRole('term', undefined, byRole('main')).map(dt => [dt.textContent, dt.nextElementSibling.textContent])`)
			label := func(key string) string { return text(t, l.code, "memberDetails."+key) }
			wantFacts := [][2]string{
				{label("owner"), owner},
				{label("routes"), profile("routes")},
				{label("office"), profile("office")},
				{label("phone"), m.Phone},
				{label("email"), m.Email},
				{label("address"), profile("address")},
				{label("hours"), profile("hours")},
				{label("website"), strings.TrimPrefix(m.URL, "https://") + " " + label("external")},
			}
			if !slices.Equal(facts, wantFacts) {
				t.Errorf("%s: facts\n got %q\nwant %q", where, facts, wantFacts)
			}
			links := eval[map[string]string](p, `Object.fromEntries(allByRole('definition', undefined, byRole('main')).flatMap(dd => allByRole('link', undefined, dd)).map(a => [a.protocol, a.getAttribute('href')]))`)
			if links["tel:"] != "tel:"+strings.ReplaceAll(m.Phone, " ", "") || links["mailto:"] != "mailto:"+m.Email || links["https:"] != m.URL {
				t.Errorf("%s: links %v", where, links)
			}
			// The member's web site, as its link's address says.
			site := `allByRole('link', undefined, byRole('main')).find(a => a.getAttribute('href') === ` + jsString(m.URL) + `)`
			ext := eval[map[string]string](p, `(() => { const a = `+site+`; return {target: a.target, rel: a.rel}; })()`)
			if ext["target"] != "_blank" || !strings.Contains(ext["rel"], "noopener") || !strings.Contains(ext["rel"], "noreferrer") {
				t.Errorf("%s: external link opens unsafely: %v", where, ext)
			}
			if _, name, _ := axNode(p, site); !strings.Contains(name, label("external")) {
				t.Errorf("%s: external link named %q, lacks %q", where, name, label("external"))
			}
		}
	}
}

func TestMobileAppQRCodeDecodesToTheDownloadLink(t *testing.T) {
	var site struct {
		App struct {
			AndroidURL string `json:"androidURL"`
		} `json:"app"`
	}
	raw, err := os.ReadFile(filepath.Join(root, "data", "site.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &site); err != nil {
		t.Fatal(err)
	}
	for _, l := range languagesUnderTest {
		p := newPage(t, viewport(360, 740))
		p.open(l.prefix + "/mobile-app")
		link := eval[string](p, `document.querySelector('main a[href$=".apk"]').href`)
		if link != site.App.AndroidURL {
			t.Errorf("%s: download link %s, want %s", l.prefix, link, site.App.AndroidURL)
		}
		// The QR code loads lazily (it is below the first screen on a
		// phone): scroll to it as a person would and wait for it.
		// The QR code: the image named by its alt text.
		qr := byRole("img", text(t, l.code, "mobileApp.qrAlt"))
		p.do(chromedp.ScrollIntoView(locate(qr)))
		p.waitFor(qr + `.complete`)
		img := eval[map[string]any](p, `(() => { const i = `+qr+`; return {src: i.getAttribute('src'), alt: i.alt, loaded: i.complete && i.naturalWidth > 0}; })()`)
		if img["alt"] != text(t, l.code, "mobileApp.qrAlt") || img["loaded"] != true || !strings.HasPrefix(img["src"].(string), "/assets/build/") {
			t.Errorf("%s: QR image %v", l.prefix, img)
		}
		shot, err := chromedp.Run(p.ctx, chromedp.Screenshot(locate(qr)))
		if err != nil {
			t.Fatal(err)
		}
		decoded := decodeQR(t, shot)
		if decoded != link {
			t.Errorf("%s: the QR code on screen reads %q, want the download link %q", l.prefix, decoded, link)
		}
	}
}

func decodeQR(t *testing.T, pngBytes []byte) string {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(pngBytes))
	if err != nil {
		t.Fatal(err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	res, err := qrcode.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		t.Fatalf("decoding the QR code: %v", err)
	}
	return res.GetText()
}

// donation drives the donate page's island as a visitor would.
type donation struct {
	*page
	lang string
}

func openDonation(t *testing.T, l struct{ code, prefix string }) donation {
	p := newPage(t, viewport(360, 800))
	p.open(l.prefix + "/donate")
	for len(paymentProvider.posts) > 0 {
		<-paymentProvider.posts
	}
	return donation{p, l.code}
}

// preset chooses the amount of n dollars, frequency "once" or "monthly"
// (by their labels in the page's language), and submit sends the form.
func (d donation) preset(n int)       { d.click(byRole("radio", fmt.Sprintf("$%d", n))) }
func (d donation) frequency(f string) { d.click(byRole("radio", text(d.t, d.lang, "donate."+f))) }
func (d donation) submit()            { d.click(byRole("button", text(d.t, d.lang, "donate.submit"))) }
func (d donation) typeOther(s string) {
	d.do(chromedp.Click(chromedp.CSS("#donate-other")), chromedp.SendKeys(chromedp.CSS("#donate-other"), strings.Repeat(kb.Backspace, 10)+s))
}

// paste inserts text at the caret of the amount the way a paste does: one
// input event carrying the whole text.
func (d donation) paste(text string) {
	d.t.Helper()
	d.do(chromedp.Click(chromedp.CSS("#donate-other")))
	if _, err := chromedp.Call(d.ctx, input.InsertText, input.InsertTextParams{Text: text}); err != nil {
		d.t.Fatal(err)
	}
}

func (d donation) otherValue() string {
	return eval[string](d.page, `document.getElementById('donate-other').value`)
}

// errorShown is the amount error on screen ("" when none), checking that
// the field is marked invalid and described by it whenever it shows.
func (d donation) errorShown() string {
	d.t.Helper()
	state := eval[map[string]string](d.page, `(() => {
  const input = document.getElementById('donate-other'), err = document.getElementById('donate-error');
  return {text: err ? err.textContent : '', invalid: input.getAttribute('aria-invalid') ?? '', describedBy: input.getAttribute('aria-describedby') ?? ''};
})()`)
	if state["text"] != "" && (state["invalid"] != "true" || state["describedBy"] != "donate-error") {
		d.t.Errorf("the error shows but the field is not marked: %v", state)
	}
	return state["text"]
}

func (d donation) durationSelect() []string {
	return eval[[]string](d.page, `[...document.querySelectorAll('#donate-duration option')].map(o => o.value + '=' + o.textContent)`)
}

func form(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

func expectPost(t *testing.T, got providerPost, path string, want url.Values) {
	t.Helper()
	if got.path != path || fmt.Sprint(got.form) != fmt.Sprint(want) {
		t.Errorf("the provider received %s %v\nwant %s %v", got.path, got.form, path, want)
	}
}

// itemName is the item name data/site.json gives donations.
func itemName(t *testing.T) string {
	t.Helper()
	var site struct {
		Payment struct {
			ItemName string `json:"itemName"`
		} `json:"payment"`
	}
	raw, err := os.ReadFile(filepath.Join(root, "data", "site.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &site); err != nil {
		t.Fatal(err)
	}
	return site.Payment.ItemName
}

func TestDonationEmptyAndInvalidAmountsAreRefused(t *testing.T) {
	for _, l := range languagesUnderTest {
		d := openDonation(t, l)
		invalid := text(t, l.code, "donate.invalidAmount")
		if d.errorShown() != "" || len(d.durationSelect()) != 0 {
			t.Fatalf("%s: the form starts with an error or a duration", l.prefix)
		}
		d.submit()
		if got := d.errorShown(); got != invalid {
			t.Errorf("%s: empty submit shows %q, want %q", l.prefix, got, invalid)
		}
		paymentProvider.expectNothing(t, l.prefix+" empty submit")
		if got := d.location(); got != l.prefix+"/donate" {
			t.Errorf("%s: empty submit left the page for %s", l.prefix, got)
		}
		d.expectAccessible()

		// Choosing an amount clears the error.
		d.preset(5)
		if got := d.errorShown(); got != "" {
			t.Errorf("%s: choosing $5 left the error %q", l.prefix, got)
		}
		// The amount is whole dollars, digits only (SPEC §5). What the
		// visitor types stays in the field as typed, and anything else
		// shows the error at once and cannot be sent: "2.50" never
		// becomes 250 dollars, nor "1.5e3" 153.
		d.typeOther("7x")
		if got, err := d.otherValue(), d.errorShown(); got != "7x" || err != invalid {
			t.Errorf("%s: typing 7x left %q with error %q, want 7x and %q", l.prefix, got, err, invalid)
		}
		if eval[bool](d.page, `document.querySelector('input[name="preset"]:checked') !== null`) {
			t.Errorf("%s: typing another amount kept a preset chosen", l.prefix)
		}
		for _, typed := range []string{"2.50", "1.5e3", "1e3", "-5", "+5", "1,000", "12 ", " 12", "$30", "05", "12345678"} {
			d.typeOther(typed)
			if got, err := d.otherValue(), d.errorShown(); got != typed || err != invalid {
				t.Errorf("%s: typing %q left %q with error %q, want it kept with the error", l.prefix, typed, got, err)
			}
			d.submit()
			if got := d.location(); got != l.prefix+"/donate" {
				t.Fatalf("%s: submitting %q left the page for %s", l.prefix, typed, got)
			}
		}
		paymentProvider.expectNothing(t, l.prefix+" submit with amounts that are not whole dollars")
		// The error shows from the first refused character on, and stays
		// until the field holds whole dollars again.
		d.typeOther("2")
		if err := d.errorShown(); err != "" {
			t.Errorf("%s: typing 2 shows %q", l.prefix, err)
		}
		d.do(chromedp.SendKeys(chromedp.CSS("#donate-other"), "."))
		if err := d.errorShown(); err != invalid {
			t.Errorf("%s: typing 2. shows %q, want the error at once", l.prefix, err)
		}
		d.do(chromedp.SendKeys(chromedp.CSS("#donate-other"), "50"))
		if got, err := d.otherValue(), d.errorShown(); got != "2.50" || err != invalid {
			t.Errorf("%s: typing 2.50 left %q with error %q", l.prefix, got, err)
		}
		d.typeOther("२५")
		if got, err := d.otherValue(), d.errorShown(); got != "25" || err != "" {
			t.Errorf("%s: typing २५ left %q with error %q, want 25 and no error", l.prefix, got, err)
		}
		// Pasted text is kept and refused the same way.
		for _, pasted := range []string{"12.50", "$30", "40 USD", "1.5e3"} {
			d.typeOther("")
			d.paste(pasted)
			if got, err := d.otherValue(), d.errorShown(); got != pasted || err != invalid {
				t.Errorf("%s: pasting %q left %q with error %q, want it kept with the error", l.prefix, pasted, got, err)
			}
		}
		d.typeOther("")
		d.paste("25")
		if got, err := d.otherValue(), d.errorShown(); got != "25" || err != "" {
			t.Errorf("%s: pasting 25 left %q with error %q", l.prefix, got, err)
		}
		// Zero and an empty amount keep the error and cannot be sent.
		for _, bad := range []string{"0", ""} {
			d.typeOther(bad)
			d.submit()
			if got := d.errorShown(); got != invalid {
				t.Errorf("%s: other amount %q shows %q, want the error", l.prefix, bad, got)
			}
		}
		paymentProvider.expectNothing(t, l.prefix+" submit with invalid amounts")
		d.expectNoConsoleErrors()
	}
}

func TestDonationOneTimePostsTheDonationFields(t *testing.T) {
	item := itemName(t)

	for _, l := range languagesUnderTest {
		d := openDonation(t, l)
		d.preset(10)
		d.submit()
		expectPost(t, paymentProvider.next(t), "/donate", form("cmd", "_donations", "amount", "10", "currency_code", "USD", "item_name", item))
		d.waitFor(`location.port === '` + strings.Split(paymentProvider.srv.URL, ":")[2] + `'`)
	}

	d := openDonation(t, languagesUnderTest[0])
	d.typeOther("abc")
	d.typeOther("25")
	if got := d.errorShown(); got != "" {
		t.Errorf("a valid other amount left the error %q", got)
	}
	d.submit()
	expectPost(t, paymentProvider.next(t), "/donate", form("cmd", "_donations", "amount", "25", "currency_code", "USD", "item_name", item))
}

func TestDonationMonthlyPostsASubscription(t *testing.T) {
	item := itemName(t)

	for _, l := range languagesUnderTest {
		d := openDonation(t, l)
		d.frequency("monthly")
		options := d.durationSelect()
		want := []string{"0=" + text(t, l.code, "donate.neverEnd")}
		for m := 2; m <= 12; m++ {
			want = append(want, fmt.Sprintf("%d=%s", m, text(t, l.code, "donate.months_other", "count", fmt.Sprint(m))))
		}
		if !slices.Equal(options, want) {
			t.Errorf("%s: duration options\n got %v\nwant %v", l.prefix, options, want)
		}
		if got := eval[string](d.page, `document.getElementById('donate-duration').value`); got != "0" {
			t.Errorf("%s: duration starts at %s, want 0 (Never End)", l.prefix, got)
		}
		if wide := eval[[]string](d.page, overflowing); len(wide) > 0 {
			t.Errorf("%s monthly: wider than a 360 px screen: %v", l.prefix, wide)
		}
		d.submit()
		paymentProvider.expectNothing(t, l.prefix+" monthly without an amount")
		d.preset(20)
		d.expectAccessible()
		d.screenshot(strings.TrimPrefix(strings.ReplaceAll(l.prefix+"/donate-monthly-phone", "/", "_"), "_"))
	}

	// Monthly for six months, then never ending, then back to one-time.
	d := openDonation(t, languagesUnderTest[0])
	d.frequency("monthly")
	d.preset(20)
	d.do(chromedp.SendKeys(chromedp.CSS("#donate-duration"), "6 months"))
	if got := eval[string](d.page, `document.getElementById('donate-duration').value`); got != "6" {
		t.Fatalf("choosing 6 months: duration %s", got)
	}
	d.submit()
	expectPost(t, paymentProvider.next(t), "/subscribe", form("cmd", "_xclick-subscriptions", "a3", "20", "p3", "1", "t3", "M", "src", "1", "srt", "6", "currency_code", "USD", "item_name", item))

	d = openDonation(t, languagesUnderTest[0])
	d.frequency("monthly")
	d.typeOther("15")
	d.submit()
	expectPost(t, paymentProvider.next(t), "/subscribe", form("cmd", "_xclick-subscriptions", "a3", "15", "p3", "1", "t3", "M", "src", "1", "srt", "0", "currency_code", "USD", "item_name", item))

	d = openDonation(t, languagesUnderTest[0])
	d.frequency("monthly")
	d.frequency("once")
	if len(d.durationSelect()) != 0 {
		t.Error("the duration select stays after switching back to one-time")
	}
	d.preset(3)
	d.submit()
	expectPost(t, paymentProvider.next(t), "/donate", form("cmd", "_donations", "amount", "3", "currency_code", "USD", "item_name", item))
}
