// Package e2e holds the browser tests: they build the site, start the real
// `freightsite serve` on a loopback port and drive Debian's Chromium with
// chromedp. They fail, not skip, when CI is set and Chromium is missing.
// It also runs the examples of README.md and docs/ against the real
// binary (readme_test.go), the Lighthouse audit, and crash and fault tests.
package e2e
