package receivables

import (
	"strings"

	"freightsite/data"
)

// indianStates is the registration form's list of Indian states and union
// territories (data/states.json): the codes a State column accepts for a
// row in India, and the names a clerk may have typed instead.
var indianStates = func() (s stateList) {
	s.names = map[string]string{}
	for _, st := range data.States()["IN"] {
		s.codes[pairIndex(st.Key)] = true
		s.names[headingKey(st.Value)] = st.Key
	}
	// Codes and names that are no longer (or never were) the list's:
	// Odisha and Telangana changed their codes, Uttarakhand and
	// Chhattisgarh have ISO codes besides their vehicle codes, and two
	// union territories merged in 2020.
	for old, now := range map[string]string{"OR": "OD", "TS": "TG", "CT": "CG", "UT": "UK", "UA": "UK", "DN": "DH", "DD": "DH"} {
		s.former[pairIndex(old)] = now
	}
	for old, now := range map[string]string{"Orissa": "OD", "Uttaranchal": "UK", "Pondicherry": "PY", "Delhi NCR": "DL", "New Delhi": "DL"} {
		s.names[headingKey(old)] = now
	}
	return s
}()

type stateList struct {
	codes  [26 * 26]bool
	former [26 * 26]string
	// names maps a state's name, as headingKey folds it, to its code.
	names map[string]string
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

// suggest returns the code a clerk most likely meant by v, or "".
func (s *stateList) suggest(v string) string {
	upper := strings.ToUpper(v)
	if len(upper) == 2 && allCapitals(upper) {
		if s.has(upper) {
			return upper
		}
		return s.former[pairIndex(upper)]
	}
	return s.names[headingKey(v)]
}

// inIndia reports whether a row's country value puts its state on the
// Indian list: IN, or empty (the site's accounts are Indian by default).
func inIndia(country string) bool { return country == "" || country == "IN" }
