package cmd

import (
	"github.com/spf13/pflag"

	"freightsite/formapi"
)

// accountFlags are the flags of registration, sign-in and password
// recovery, shared by `serve` and `api`.
type accountFlags struct {
	opts formapi.AccountOptions
}

func (f *accountFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.opts.BaseURL, "base-url", "", "address of the site that password-reset links start with (default: baseURL of data/site.json)")
	fs.StringSliceVar(&f.opts.SiteOrigins, "site-origin", nil, "another origin (scheme://host[:port]) the site is served at, repeatable; a reset request's origin is used for its link only when it is the base URL's or one of these")
	fs.IntVar(&f.opts.CaptchaMaxNumber, "captcha-max-number", formapi.DefaultCaptchaMaxNumber, "largest secret number of a proof-of-work captcha challenge: the browser's work grows with it")
	fs.StringVar(&f.opts.RecaptchaSecret, "recaptcha-secret", "", "reCAPTCHA secret key: check captchas with Google instead of the self-hosted proof of work (build the site with --recaptcha-site-key too)")
	fs.StringVar(&f.opts.RecaptchaVerifyURL, "recaptcha-verify-url", formapi.DefaultRecaptchaVerifyURL, "where reCAPTCHA answers are verified")
	fs.DurationVar(&f.opts.SignInLockout, "sign-in-lockout", formapi.DefaultSignInLockout, "how long sign-in from an address is refused after repeated failures (doubling for each further lockout, up to 4 times), and how long failures count towards an account's captcha step-up")
}

// validate checks the flags' values before anything starts.
func (f *accountFlags) validate() error {
	if err := f.opts.Validate(); err != nil {
		return exitError{2, err}
	}
	return nil
}
