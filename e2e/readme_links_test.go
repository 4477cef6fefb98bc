package e2e

import (
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

var (
	// mdLink is the target of a Markdown link or image, htmlLink of an
	// HTML one.
	mdLink     = regexp.MustCompile(`\]\(([^()\s]+)\)`)
	htmlLink   = regexp.MustCompile(`(?:src|href)="([^"]+)"`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	withScheme = regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`)
)

// TestREADMELinks: every relative link of README.md and the guides in
// docs/ (Markdown and HTML, images included) leads to a file of the
// source tree, and its #anchor to a heading of that file, named as GitHub
// names it; each failure names the file and line.
func TestREADMELinks(t *testing.T) {
	anchors := map[string]map[string]bool{} // document -> its headings' anchors
	anchorsOf := func(file string) map[string]bool {
		if a, ok := anchors[file]; ok {
			return a
		}
		anchors[file] = headingAnchors(readDoc(t, file))
		return anchors[file]
	}
	links := 0
	for _, file := range docFiles(t) {
		d := readDoc(t, file)
		for i, line := range proseLines(d) {
			if line == "" {
				continue
			}
			at := loc{file, i + 1}
			line = codeSpan.ReplaceAllString(line, "")
			var targets []string
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				targets = append(targets, m[1])
			}
			for _, m := range htmlLink.FindAllStringSubmatch(line, -1) {
				targets = append(targets, m[1])
			}
			for _, target := range targets {
				if withScheme.MatchString(target) {
					continue
				}
				links++
				name, anchor, _ := strings.Cut(target, "#")
				dest := file
				if name != "" {
					dest = path.Clean(path.Join(path.Dir(file), name))
					if strings.HasPrefix(dest, "../") {
						t.Errorf("%s: %s leads out of the source tree", at, target)
						continue
					}
					if _, err := os.Stat(root + "/" + dest); err != nil {
						t.Errorf("%s: %s leads to %s, which the source tree lacks", at, target, dest)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(dest, ".md") {
					t.Errorf("%s: %s has an anchor into %s, which is not a document", at, target, dest)
				} else if !anchorsOf(dest)[anchor] {
					t.Errorf("%s: %s: %s has no heading #%s (its anchors: %v)", at, target, dest, anchor, sortedSet(anchorsOf(dest)))
				}
			}
		}
	}
	t.Logf("%d relative links checked", links)
}

// proseLines are a document's lines with those of code blocks (fences
// included) blanked.
func proseLines(d readmeDoc) []string {
	lines := make([]string, len(d.lines))
	inBlock := false
	for i, l := range d.lines {
		if strings.HasPrefix(l, "```") {
			inBlock = !inBlock
			continue
		}
		if !inBlock {
			lines[i] = l
		}
	}
	return lines
}

// headingAnchors are the anchors GitHub gives a document's headings: the
// text in lower case, without punctuation but hyphens and underscores,
// spaces as hyphens; a repeated one gets -1, -2, ...
func headingAnchors(d readmeDoc) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, l := range proseLines(d) {
		text, ok := strings.CutPrefix(l, "#")
		if !ok {
			continue
		}
		text = strings.TrimSpace(strings.TrimLeft(text, "#"))
		var b strings.Builder
		for _, c := range strings.ToLower(text) {
			switch {
			case c == ' ':
				b.WriteRune('-')
			case c == '-' || c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c) || unicode.Is(unicode.Mn, c) || unicode.Is(unicode.Mc, c):
				b.WriteRune(c)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

func sortedSet(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
