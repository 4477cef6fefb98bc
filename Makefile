# The two commands of README.md: `make run` (build and serve the whole site
# on http://localhost:8080) and `make test` (every test, browser tests in
# real Chromium included).

.PHONY: run test build vet

run: node_modules
	go build -o freightsite .
	./freightsite build
	./freightsite serve

build: node_modules
	go build -o freightsite .
	./freightsite build

test: node_modules chromium
	go vet ./...
	go test -timeout 45m ./...

vet:
	go vet ./...

# npm ci again whenever the lock file is newer than node_modules.
node_modules: package-lock.json
	npm ci --no-audit --no-fund
	@touch node_modules

# Browser tests need Debian's Chromium and a Devanagari font (Noto, as on
# Android phones), the nginx test needs nginx; install them when missing
# (as root).
.PHONY: chromium
chromium:
	@if ! command -v chromium >/dev/null 2>&1 || [ ! -d /usr/share/fonts/truetype/noto ] || [ ! -x /usr/sbin/nginx ]; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-core nginx; \
		else echo "Chromium, fonts-noto-core or nginx is missing: run 'sudo apt-get install -y chromium fonts-noto-core nginx'"; exit 1; fi; fi
