package server

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"freightsite/formapi"
	"freightsite/internal/captcha"
	"freightsite/internal/store"
)

// testOptions are Options as the api command's defaults set them, on a
// loopback port and a database of the test's.
func testOptions(t *testing.T) Options {
	return Options{
		Addr:           "127.0.0.1:0",
		DB:             filepath.Join(t.TempDir(), "api.db"),
		StopTimeout:    time.Second,
		ConnsPerClient: DefaultConnsPerClient,
		Version:        "test",
		Accounts:       formapi.AccountOptions{RecaptchaVerifyURL: captcha.DefaultRecaptchaVerifyURL},
	}
}

// TestBadSettingsAreNamed: Run refuses a bad setting with a SettingError
// naming it as the commands' flags do (so they can say where the value
// came from), and a server that cannot start as told with a UsageError;
// neither serves.
func TestBadSettingsAreNamed(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, c := range []struct {
		name    string
		set     func(*Options)
		setting string // "" for a UsageError
	}{
		{"a log file in a missing directory", func(o *Options) { o.LogFile = filepath.Join(t.TempDir(), "no", "log") }, "log-file"},
		{"a base URL with no scheme", func(o *Options) { o.Accounts.BaseURL = "freight.example" }, "base-url"},
		{"a site origin with a path", func(o *Options) { o.Accounts.SiteOrigins = []string{"https://pune.example.com/path"} }, "site-origin"},
		{"a relative reCAPTCHA verify URL", func(o *Options) { o.Accounts.RecaptchaVerifyURL = "siteverify" }, "recaptcha-verify-url"},
		{"a negative cap per client", func(o *Options) { o.ConnsPerClient = -1 }, "max-conns-per-client"},
		{"metrics on every interface", func(o *Options) { o.MetricsAddr = ":9090" }, "metrics-addr"},
		{"metrics with no port", func(o *Options) { o.MetricsAddr = "localhost" }, "metrics-addr"},
		{"an unknown rate limit", func(o *Options) { o.RateLimits = []string{"contact=lots"} }, "rate-limit"},
		{"a trusted proxy by name", func(o *Options) { o.TrustedProxies = []string{"nginx"} }, "trusted-proxy"},
		{"a provider e-mail that is no address", func(o *Options) { o.ProviderEmail = "not an address" }, "provider-email"},
		{"a sender with a bidi control", func(o *Options) { o.MailFrom = "Acme\u202e Freight <noreply@freight.example>" }, "mail-from"},
		{"an SMTP URL of another scheme", func(o *Options) { o.SMTPURL = "bogus://mail.example" }, "smtp-url"},
		{"a short secret", func(o *Options) { o.Secret = "short" }, "secret"},
		{"an address taken", func(o *Options) { o.Addr = taken.Addr().String() }, ""},
		{"a local base URL on every interface", func(o *Options) { o.Addr = "0.0.0.0:0" }, ""},
	} {
		opts := testOptions(t)
		c.set(&opts)
		served := false
		opts.Opened = func(*store.Store) { served = true }
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := Run(ctx, opts, io.Discard)
		cancel()
		var bad *SettingError
		var usage *UsageError
		switch {
		case served:
			t.Errorf("%s: served", c.name)
		case c.setting != "" && (!errors.As(err, &bad) || bad.Setting != c.setting):
			t.Errorf("%s: %v, want a SettingError naming %s", c.name, err, c.setting)
		case c.setting == "" && !errors.As(err, &usage):
			t.Errorf("%s: %v, want a UsageError", c.name, err)
		}
	}
}

// TestSettingsAreCheckedBeforeTheDatabaseOpens: a refused setting that
// needs no database leaves none behind.
func TestSettingsAreCheckedBeforeTheDatabaseOpens(t *testing.T) {
	for _, set := range []func(*Options){
		func(o *Options) { o.Addr = "0.0.0.0:0" },
		func(o *Options) { o.MetricsAddr = "0.0.0.0:9090" },
		func(o *Options) { o.SMTPURL = "bogus://mail.example" },
	} {
		opts := testOptions(t)
		set(&opts)
		if err := Run(context.Background(), opts, io.Discard); err == nil {
			t.Fatal("served")
		}
		if _, err := os.Stat(opts.DB); err == nil {
			t.Errorf("the database was opened before the refusal")
		}
	}
}

// TestRunServesUntilItsContextEnds: Run logs the address it serves,
// hands the open database to Opened, answers /healthz with the version,
// and on the context's end stops and returns nil.
func TestRunServesUntilItsContextEnds(t *testing.T) {
	opts := testOptions(t)
	opened := make(chan *store.Store, 1)
	opts.Opened = func(s *store.Store) { opened <- s }
	var log lockedBuffer
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	go func() { done <- Run(ctx, opts, &log) }()
	serving := regexp.MustCompile(`msg=serving url=(http://127\.0\.0\.1:\d+)`)
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == ""; time.Sleep(20 * time.Millisecond) {
		if m := serving.FindStringSubmatch(log.String()); m != nil {
			base = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no serving line in the log: %q", log.String())
		}
	}
	if s := <-opened; s == nil {
		t.Error("Opened was handed no database")
	}
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !regexp.MustCompile(`\btest\b`).Match(body) {
		t.Errorf("/healthz: %d %q, want 200 naming the version", resp.StatusCode, body)
	}
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("stopping: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	if got := log.String(); !regexp.MustCompile(`shutting down`).MatchString(got) {
		t.Errorf("the log says nothing of the stop: %q", got)
	}
}
