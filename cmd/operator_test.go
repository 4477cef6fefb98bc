package cmd

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"freightsite/formapi"
)

// TestErrorsNameTheEnvironmentVariable: a bad value that came from the
// environment is reported under the variable's name, one from the command
// line under the flag's.
func TestErrorsNameTheEnvironmentVariable(t *testing.T) {
	db := filepath.Join(t.TempDir(), "f.db")
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"FREIGHTSITE_SECRET": "short"}, nil, "FREIGHTSITE_SECRET: the secret must be at least 32 characters"},
		{nil, []string{"--secret", "short"}, "--secret: the secret must be at least 32 characters"},
		{map[string]string{"FREIGHTSITE_BASE_URL": "freight.example"}, nil, "FREIGHTSITE_BASE_URL: base URL"},
		{map[string]string{"FREIGHTSITE_RATE_LIMIT": "contact=lots"}, nil, "FREIGHTSITE_RATE_LIMIT: rate"},
		{map[string]string{"FREIGHTSITE_PROVIDER_EMAIL": "not an address"}, nil, "FREIGHTSITE_PROVIDER_EMAIL:"},
		{map[string]string{"FREIGHTSITE_TRUSTED_PROXY": "nginx"}, nil, "FREIGHTSITE_TRUSTED_PROXY: trusted proxy"},
		{nil, []string{"--mail-from", "Acme\u202e Freight <noreply@freight.example>"}, "--mail-from: contains U+202E, a bidi control"},
		{map[string]string{"FREIGHTSITE_MAIL_FROM": "Acme\u200b Freight <noreply@freight.example>"}, nil, "FREIGHTSITE_MAIL_FROM: contains U+200B"},
		{nil, []string{"--provider-email", "office\u00ad@freight.example"}, "--provider-email: contains U+00AD"},
		{map[string]string{"FREIGHTSITE_METRICS_ADDR": ":9090"}, nil, "FREIGHTSITE_METRICS_ADDR: :9090 listens on every interface"},
		{nil, []string{"--max-conns-per-client", "-1"}, "--max-conns-per-client: -1: want 0 (no cap) or more"},
	} {
		args := append([]string{"api", "--addr", "127.0.0.1:0", "--db", db}, c.args...)
		code, _, stderr := execute(t, c.env, args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v %v: exit %d, stderr %q; want 2 and %q", c.env, c.args, code, stderr, c.want)
		}
	}
}

// TestBuildsOutputDoesNotLeakIntoCSVSample: FREIGHTSITE_OUT says where
// build publishes the site; csv sample still writes to standard output.
func TestBuildsOutputDoesNotLeakIntoCSVSample(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dist")
	code, stdout, stderr := execute(t, map[string]string{"FREIGHTSITE_OUT": dir}, "csv", "sample")
	if code != 0 || !strings.HasPrefix(strings.TrimPrefix(stdout, "\ufeff"), "Account Number,") {
		t.Errorf("csv sample with FREIGHTSITE_OUT set: exit %d, stdout %.40q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("csv sample wrote %s", dir)
	}
}

// TestHelpListsEveryRateLimit: api --help names every rate limit
// --rate-limit takes, with its default.
func TestHelpListsEveryRateLimit(t *testing.T) {
	_, stdout, _ := execute(t, nil, "api", "--help")
	for name, rate := range formapi.DefaultRates {
		if !strings.Contains(stdout, name+"="+rate.String()) {
			t.Errorf("api --help does not list %s=%s", name, rate)
		}
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := execute(t, nil, "--version")
	if code != 0 || !strings.HasPrefix(stdout, "freightsite version ") || !strings.Contains(stdout, "go1.") {
		t.Errorf("--version: exit %d, %q", code, stdout)
	}
}

// TestLocalBaseURLIsRefusedWhereOthersCanReach: on an address other
// machines reach, a base URL of localhost would send them nowhere; the
// API refuses to start unless told to, before it opens the database.
func TestLocalBaseURLIsRefusedWhereOthersCanReach(t *testing.T) {
	db := filepath.Join(t.TempDir(), "f.db")
	code, _, stderr := execute(t, nil, "api", "--addr", "0.0.0.0:0", "--db", db)
	if code != 2 || !strings.Contains(stderr, "--base-url") || !strings.Contains(stderr, "--allow-local-base-url") {
		t.Errorf("api on 0.0.0.0 with the default base URL: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("the database was opened before the refusal")
	}
}

// TestMetricsAddrIsNeverThePublicOne: --metrics-addr on every interface
// or on the API's own port is refused before the database is opened.
func TestMetricsAddrIsNeverThePublicOne(t *testing.T) {
	db := filepath.Join(t.TempDir(), "f.db")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	public := ln.Addr().String()
	ln.Close()
	for _, c := range []struct{ addr, metrics, want string }{
		{"127.0.0.1:0", "0.0.0.0:9090", "listens on every interface"},
		{"127.0.0.1:0", ":9090", "listens on every interface"},
		{"127.0.0.1:0", "[::]:9090", "listens on every interface"},
		{"127.0.0.1:0", "localhost", "want host:port"},
		{public, public, "has the port the API serves on"},
	} {
		code, _, stderr := execute(t, nil, "api", "--addr", c.addr, "--db", db, "--metrics-addr", c.metrics)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("--metrics-addr %s with --addr %s: exit %d, %q; want 2 and %q", c.metrics, c.addr, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("the database was opened before the refusal")
	}
}
