package captcha

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultRecaptchaVerifyURL is Google's siteverify endpoint.
const DefaultRecaptchaVerifyURL = "https://www.google.com/recaptcha/api/siteverify"

// Recaptcha asks Google's siteverify (or the configured stand-in) about a
// reCAPTCHA response.
type Recaptcha struct {
	secret    string
	verifyURL string
	client    *http.Client
}

// NewRecaptcha checks answers with this secret at verifyURL
// (DefaultRecaptchaVerifyURL when "").
func NewRecaptcha(secret, verifyURL string) *Recaptcha {
	if verifyURL == "" {
		verifyURL = DefaultRecaptchaVerifyURL
	}
	return &Recaptcha{secret: secret, verifyURL: verifyURL, client: &http.Client{Timeout: 10 * time.Second}}
}

// Verify asks siteverify about a response.
func (g *Recaptcha) Verify(ctx context.Context, response, clientIP string) error {
	form := url.Values{"secret": {g.secret}, "response": {response}}
	if clientIP != "" {
		form.Set("remoteip", clientIP)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.verifyURL, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := g.client.Do(req)
	if err != nil {
		return fmt.Errorf("asking reCAPTCHA: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("asking reCAPTCHA: HTTP %d", resp.StatusCode)
	}
	var answer struct {
		Success bool     `json:"success"`
		Codes   []string `json:"error-codes"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&answer); err != nil {
		return fmt.Errorf("reading reCAPTCHA's answer: %w", err)
	}
	if !answer.Success {
		return refused("reCAPTCHA says no (%s)", strings.Join(answer.Codes, ", "))
	}
	return nil
}
