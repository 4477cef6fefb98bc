// Package site serves a site generator.Build wrote (Site, for freightsite
// serve) or one freightsite dev holds in memory (Memory): exact routes in
// every language, each language's 404 page, redirects from a trailing
// slash, news items, precompressed files and the build's headers. It also
// owns the layout of dist/ (layout.go), which the build writes with.
package site
