# The commands of README.md: `make run` (build and serve the whole site on
# http://localhost:8080), `make test` (every test, browser tests in real
# Chromium and the Lighthouse audit included) and `make bench` (this
# machine's figures, written to bench/results/).

.PHONY: run test build vet bench

run: node_modules
	go build -buildvcs=auto -o freightsite .
	./freightsite build
	./freightsite serve

build: node_modules
	go build -buildvcs=auto -o freightsite .
	./freightsite build

# Lighthouse measures speed, so it runs on its own after the other tests
# (which run packages in parallel) rather than beside them.
test: node_modules chromium
	go vet ./...
	go test -timeout 45m -skip '^TestLighthouse$$' ./...
	go test -timeout 20m -run '^TestLighthouse$$' -v ./e2e

vet:
	go vet ./...

bench: node_modules
	go run ./bench

# npm ci again whenever the lock file is newer than node_modules.
node_modules: package-lock.json
	npm ci --no-audit --no-fund
	@touch node_modules

# Browser tests need Debian's Chromium and a Devanagari font (Noto, as on
# Android phones), the operator's tests nginx, the sqlite3 shell and
# systemd-analyze; install them when missing (as root).
.PHONY: chromium
chromium:
	@if ! command -v chromium >/dev/null 2>&1 || [ ! -d /usr/share/fonts/truetype/noto ] || [ ! -x /usr/sbin/nginx ] || ! command -v sqlite3 >/dev/null 2>&1 || ! command -v systemd-analyze >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-core nginx sqlite3 systemd; \
		else echo "Chromium, fonts-noto-core, nginx, sqlite3 or systemd is missing: run 'sudo apt-get install -y chromium fonts-noto-core nginx sqlite3 systemd'"; exit 1; fi; fi
