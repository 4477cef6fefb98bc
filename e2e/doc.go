// Package e2e holds the browser tests: they build the site, start the real
// `freightsite serve` on a loopback port and drive Debian's Chromium with
// chromedp. They fail, not skip, when CI is set and Chromium is missing.
package e2e
