package cmd

import (
	"github.com/spf13/pflag"

	"freightsite/formapi"
	"freightsite/internal/captcha"
)

// registerAccountFlags adds the flags of registration, sign-in and
// password recovery, shared by `serve`, `api` and `dev`, setting o.
func registerAccountFlags(fs *pflag.FlagSet, o *formapi.AccountOptions) {
	fs.StringVar(&o.BaseURL, "base-url", "", "address of the site that password-reset links start with (default: baseURL of data/site.json)")
	fs.StringSliceVar(&o.SiteOrigins, "site-origin", nil, "another origin (scheme://host[:port]) the site is served at, repeatable; a reset request's origin is used for its link only when it is the base URL's or one of these")
	fs.IntVar(&o.CaptchaMaxNumber, "captcha-max-number", captcha.DefaultMaxNumber, "largest secret number of a proof-of-work captcha challenge: the browser's work grows with it")
	fs.StringVar(&o.RecaptchaSecret, "recaptcha-secret", "", "reCAPTCHA secret key: check captchas with Google instead of the self-hosted proof of work (build the site with --recaptcha-site-key too)")
	fs.StringVar(&o.RecaptchaVerifyURL, "recaptcha-verify-url", captcha.DefaultRecaptchaVerifyURL, "where reCAPTCHA answers are verified")
	fs.DurationVar(&o.SignInLockout, "sign-in-lockout", formapi.DefaultSignInLockout, "how long sign-in from an address is refused after repeated failures (doubling for each further lockout, up to 4 times), and how long failures count towards an account's captcha step-up")
}
