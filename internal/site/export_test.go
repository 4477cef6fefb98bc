package site

import "net/http"

// What the tests (package site_test, which builds a site with generator)
// look at inside the handler.

var OnSite = onSite

const MaxRanges = maxRanges

// AnswersKept is how many prepared answers h, a Site, keeps for the
// build it serves.
func AnswersKept(h http.Handler) (n int) {
	h.(*site).state.Load().answers.Range(func(any, any) bool { n++; return true })
	return n
}
