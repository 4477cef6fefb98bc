package formapi

import "freightsite/data"

// siteInfo is what the API says about the site it serves, from Config:
// its name (in mail and in the pages the API writes) and its languages.
type siteInfo struct {
	name      string
	languages []data.Language // the default first
}

func siteOf(cfg Config) siteInfo { return siteInfo{cfg.SiteName, cfg.Languages} }

// language is lang when it is one of the site's languages, else the
// default one.
func (s siteInfo) language(lang string) string {
	for _, l := range s.languages {
		if l.Code == lang {
			return lang
		}
	}
	return s.languages[0].Code
}

// prefix is the URL prefix of a language's pages ("" for the default).
func (s siteInfo) prefix(lang string) string {
	for _, l := range s.languages {
		if l.Code == lang {
			return l.Prefix
		}
	}
	return ""
}
