# The commands of README.md: `make run` (build and serve the whole site on
# http://localhost:8080), `make test` (every test, browser tests in real
# Chromium and the Lighthouse audit included), `make bench` (this
# machine's figures, written to bench/results/) and `make bench-quick`
# (every section of the benchmark briefly, to check that it works).

.PHONY: run test build vet bench bench-quick

run: node_modules
	go build -buildvcs=auto -o freightsite .
	./freightsite build
	./freightsite serve

build: node_modules
	go build -buildvcs=auto -o freightsite .
	./freightsite build

# Every step runs whatever the others did (vet, staticcheck, the Go tests, the unit
# tests of pages/ on Node, the browser tests, the quick benchmark, then
# Lighthouse on its own because it measures speed); progress as they run,
# every failure at the end (.ci/test/main.go).
test: node_modules chromium
	go run ./.ci/test

# staticcheck at the version of go.mod's tool line.
vet:
	go vet ./... ./.ci/test ./.ci/pagetest
	go tool staticcheck ./... ./.ci/test ./.ci/pagetest

bench: node_modules yardsticks
	go run ./bench

bench-quick: node_modules yardsticks
	go run ./bench -quick

# npm ci again whenever the lock file is newer than node_modules.
node_modules: package-lock.json
	npm ci --no-audit --no-fund
	@touch node_modules

# Browser tests need Debian's Chromium (chromium-headless-shell for the
# tests, chromium for Lighthouse) and a Devanagari font (Noto, as on
# Android phones), the nginx test and the benchmark nginx, the benchmark
# hugo and wrk, the curl examples of docs/api.md curl, the operator's tests the sqlite3
# shell and systemd-analyze, the formapi tests on PostgreSQL Debian's
# postgresql (initdb and pg_ctl); install them when missing (as root).
.PHONY: chromium
chromium:
	@if ! command -v chromium >/dev/null 2>&1 || ! command -v chromium-headless-shell >/dev/null 2>&1 || [ ! -d /usr/share/fonts/truetype/noto ] || [ ! -x /usr/sbin/nginx ] || ! command -v hugo >/dev/null 2>&1 || ! command -v wrk >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1 || ! command -v sqlite3 >/dev/null 2>&1 || ! command -v systemd-analyze >/dev/null 2>&1 || ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-headless-shell fonts-noto-core nginx hugo wrk curl sqlite3 systemd postgresql; \
		else echo "Chromium, chromium-headless-shell, fonts-noto-core, nginx, hugo, wrk, curl, sqlite3, systemd or postgresql is missing: run 'sudo apt-get install -y chromium chromium-headless-shell fonts-noto-core nginx hugo wrk curl sqlite3 systemd postgresql'"; exit 1; fi; fi

# What make bench measures beside freightsite (nginx, hugo, wrk) and runs
# its PostgreSQL figures on (Debian's postgresql: initdb and pg_ctl):
# installed when missing, as root; otherwise one line says how.
.PHONY: yardsticks
yardsticks:
	@if [ ! -x /usr/sbin/nginx ] || ! command -v hugo >/dev/null 2>&1 || ! command -v wrk >/dev/null 2>&1 || ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx hugo wrk postgresql; \
		else echo "make bench compares with nginx, hugo and wrk and needs postgresql, and one is missing: run 'sudo make yardsticks' (or 'sudo apt-get install -y nginx hugo wrk postgresql')"; exit 1; fi; fi
