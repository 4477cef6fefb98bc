package receivables

import (
	"strings"
	"unicode"

	"freightsite/data"
)

// indianStates is the registration form's list of Indian states and union
// territories (data/states.json): the codes a State column accepts for a
// row in India, and the names a clerk may have typed instead, in English,
// Hindi or Marathi.
var indianStates = func() (s stateList) {
	s.names = map[string]string{}
	for _, st := range data.States()["IN"] {
		s.codes[pairIndex(st.Key)] = true
		s.names[stateKey(st.Value)] = st.Key
		s.english = append(s.english, stateName{stateKey(st.Value), st.Key})
		for _, tr := range st.Translations {
			s.names[stateKey(tr.Value)] = st.Key
		}
	}
	// Codes and names that are no longer (or never were) the list's:
	// Odisha and Telangana changed their codes, Uttarakhand and
	// Chhattisgarh have ISO codes besides their vehicle codes, and two
	// union territories merged in 2020.
	for old, now := range map[string]string{"OR": "OD", "TS": "TG", "CT": "CG", "UT": "UK", "UA": "UK", "DN": "DH", "DD": "DH"} {
		s.former[pairIndex(old)] = now
	}
	for old, now := range map[string]string{
		"Orissa": "OD", "Uttaranchal": "UK", "Pondicherry": "PY", "Delhi NCR": "DL", "New Delhi": "DL", "NCT of Delhi": "DL",
		"Jammu & Kashmir": "JK", "J&K": "JK", "Andaman & Nicobar": "AN", "Andaman and Nicobar": "AN", "Daman and Diu": "DH",
		"Dadra and Nagar Haveli": "DH", "Bombay": "MH", "Maha": "MH", "Guj": "GJ", "Raj": "RJ", "Karn": "KA", "Tamilnad": "TN",
		"ओरिसा": "OD", "उड़ीसा": "OD",
	} {
		s.names[stateKey(old)] = now
	}
	return s
}()

type stateList struct {
	codes  [26 * 26]bool
	former [26 * 26]string
	// names maps a state's name, as stateKey folds it, to its code.
	names map[string]string
	// english are the English names, for names misspelt (Gujrat).
	english []stateName
}

type stateName struct{ key, code string }

// stateKey folds a state's name for comparison: lower-case letters, the
// marks of Devanagari letters and digits only, so "Tamil Nadu",
// "TAMILNADU" and "M.H." compare as "tamilnadu" and "mh".
func stateKey(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r):
			return unicode.ToLower(r)
		case unicode.IsMark(r):
			return r
		}
		return -1
	}, s)
}

// stateCodes lists the Indian state and union territory codes, in
// data/states.json's order.
func stateCodes() []string {
	var codes []string
	for _, st := range data.States()["IN"] {
		codes = append(codes, st.Key)
	}
	return codes
}

// pairIndex numbers a pair of capital letters 0 to 675.
func pairIndex(code string) int { return int(code[0]-'A')*26 + int(code[1]-'A') }

// has reports whether v (two capital letters) is on the list.
func (s *stateList) has(v string) bool { return s.codes[pairIndex(v)] }

// suggest returns the code a clerk most likely meant by v, or "": the code
// in other letters (mh, M.H.), a former code, the state's name in English,
// Hindi or Marathi, a former name, or a name misspelt by a letter or two.
func (s *stateList) suggest(v string) string {
	key := stateKey(v)
	if upper := strings.ToUpper(key); len(upper) == 2 && allCapitals(upper) {
		if s.has(upper) {
			return upper
		}
		return s.former[pairIndex(upper)]
	}
	if code := s.names[key]; code != "" {
		return code
	}
	return s.misspelt(key)
}

// misspelt finds the one English name within a letter (two for names of
// eight letters or more) of key: Gujrat, Maharastra, Chattisgarh.
func (s *stateList) misspelt(key string) string {
	if len(key) < 5 || len(key) > 40 {
		return ""
	}
	code, best, ties := "", 3, 0
	for _, n := range s.english {
		allowed := 1
		if len(n.key) >= 8 {
			allowed = 2
		}
		d := editDistance(key, n.key, allowed)
		switch {
		case d > allowed || d > best:
		case d < best:
			code, best, ties = n.code, d, 1
		case n.code != code:
			ties++
		}
	}
	if ties != 1 {
		return ""
	}
	return code
}

// editDistance is the Damerau-Levenshtein distance (optimal string
// alignment) of two ASCII strings, or limit+1 once it is over limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		lowest := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			lowest = min(lowest, cur[j])
		}
		if lowest > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// inIndia reports whether a row's country value puts its state on the
// Indian list: empty (the site's accounts are Indian by default), IN, or
// India written another way (India, IND, Bharat, भारत).
func inIndia(country string) bool {
	if country == "" || country == "IN" {
		return true
	}
	switch stateKey(country) {
	case "in", "ind", "india", "bharat", "भारत", "republicofindia":
		return true
	}
	return false
}
