package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// devFigures are `freightsite dev`'s save-to-reloaded times: from the
// moment a file is written to the moment the page open in Chromium has
// loaded again with the change (its navigation's loadEventEnd), for each
// kind of edit, over several edits.
type devFigures struct {
	Edits []devEdit `json:"edits"`
}

type devEdit struct {
	What     string    `json:"what"`
	File     string    `json:"file"`
	TargetMs float64   `json:"targetMs"`
	MedianMs float64   `json:"medianMs"`
	Samples  []float64 `json:"samplesMs"`
	// RebuildMs is the median of dev's own figure for the rebuild (its
	// terminal): the part of MedianMs before the page is told.
	RebuildMs float64 `json:"rebuildMs"`
}

// devEdits are the edits timed: each writes the file with old replaced
// by new (%d: the edit's number), and the page shows it when check
// (with the number) is true.
var devEdits = []struct {
	what, file, old, new, check string
	targetMs                    float64
}{
	{"a translation string", "locales/en.json", `"title": "Frequently asked questions"`, `"title": "Frequently asked questions %d"`,
		`document.querySelector('h1')?.textContent === 'Frequently asked questions %d'`, 150},
	{"a screen's TSX", "pages/screens/Faq.tsx", `<section className="with-aside"`, `<p id="bench-edit">%d</p><section className="with-aside"`,
		`document.getElementById('bench-edit')?.textContent === '%d'`, 250},
	{"the shared layout", "pages/layout/Layout.tsx", `<main id="main" tabIndex={-1}>`, `<main id="main" tabIndex={-1}><p id="bench-edit">%d</p>`,
		`document.getElementById('bench-edit')?.textContent === '%d'`, 400},
}

// measureDev runs `freightsite dev` (type check included, as a developer
// runs it) on a copy of the source tree, opens /faq in headless Chromium
// and times each kind of edit.
func measureDev(out io.Writer, bin, tmp string, sz size) (devFigures, error) {
	var f devFigures
	edits := 7
	if sz.quick {
		edits = 2
	}
	fmt.Fprintf(out, "== dev: freightsite dev, save to reloaded page in Chromium (median of %d edits each, tsc --watch running beside it)\n", edits)
	tree := filepath.Join(tmp, "dev-tree")
	if err := os.MkdirAll(tree, 0o755); err != nil {
		return f, err
	}
	for _, dir := range []string{"pages", "locales", "data"} {
		if b, err := exec.Command("cp", "-r", dir, tree).CombinedOutput(); err != nil {
			return f, fmt.Errorf("copying %s: %v\n%s", dir, err, b)
		}
	}
	modules, err := filepath.Abs("node_modules")
	if err != nil {
		return f, err
	}
	if err := os.Symlink(modules, filepath.Join(tree, "node_modules")); err != nil {
		return f, err
	}
	addr := freeAddr()
	logFile := filepath.Join(tmp, "dev.log")
	dev, err := start(logFile, bin, "dev", "--root", tree, "--addr", addr, "--db", filepath.Join(tmp, "dev.db"))
	if err != nil {
		return f, err
	}
	defer stop(dev)
	if err := waitUp("http://" + addr + "/healthz"); err != nil {
		log, _ := os.ReadFile(logFile)
		return f, fmt.Errorf("freightsite dev: %w\n%s", err, tail(log, 20))
	}

	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath("/usr/bin/chromium"), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(filepath.Join(tmp, "chromium")))...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelTimeout()
	live := `document.readyState === 'complete' && document.documentElement.dataset.devLive === 'open'`
	waitFor := func(expr string) error {
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr)); err == nil && ok {
				return nil
			}
			time.Sleep(5 * time.Millisecond)
		}
		state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + ' ' + document.readyState + ' ' + document.documentElement.dataset.devLive`))
		return fmt.Errorf("waiting for %s: timed out (the page: %s)", expr, state)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("http://"+addr+"/faq")); err != nil {
		return f, fmt.Errorf("opening /faq in Chromium: %w", err)
	}
	if err := waitFor(live); err != nil {
		return f, err
	}

	for _, e := range devEdits {
		path := filepath.Join(tree, e.file)
		orig, err := os.ReadFile(path)
		if err != nil {
			return f, err
		}
		if strings.Count(string(orig), e.old) != 1 {
			return f, fmt.Errorf("%s no longer holds %q once: update bench/dev.go", e.file, e.old)
		}
		r := devEdit{What: e.what, File: e.file, TargetMs: e.targetMs}
		for i := 1; i <= edits; i++ {
			// Let the type check of the last edit finish first.
			time.Sleep(500 * time.Millisecond)
			saved := time.Now()
			if err := os.WriteFile(path, []byte(strings.Replace(string(orig), e.old, fmt.Sprintf(e.new, i), 1)), 0o644); err != nil {
				return f, err
			}
			if err := waitFor(fmt.Sprintf(e.check, i) + " && " + live); err != nil {
				log, _ := os.ReadFile(logFile)
				return f, fmt.Errorf("%s, edit %d: %w\n%s", e.what, i, err, tail(log, 20))
			}
			loaded, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`performance.timeOrigin + performance.getEntriesByType('navigation')[0].loadEventEnd`))
			if err != nil {
				return f, err
			}
			r.Samples = append(r.Samples, round(loaded-float64(saved.UnixMicro())/1000, 1))
		}
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			return f, err
		}
		sorted := slices.Clone(r.Samples)
		slices.Sort(sorted)
		r.MedianMs = sorted[len(sorted)/2]
		fmt.Fprintf(out, "%-22s (%s): median %.0f ms (min %.0f, max %.0f; target <= %.0f ms)\n", e.what, e.file, r.MedianMs, sorted[0], sorted[len(sorted)-1], e.targetMs)
		f.Edits = append(f.Edits, r)
	}
	// What of each wait was the rebuild itself, as dev's terminal says
	// ("12:00:00 locales/en.json: texts of en; ...; 61 ms (bundles ...")
	// and the rest the page being told and loading again.
	log, _ := os.ReadFile(logFile)
	fmt.Fprintln(out, "its terminal: each kind's rebuild (median, save to rebuilt) and last two rebuilds")
	for i, e := range devEdits {
		var lines []string
		var ms []float64
		for _, line := range strings.Split(string(log), "\n") {
			if _, rest, ok := strings.Cut(line, " "+e.file+": "); ok && !strings.HasPrefix(line, "time=") {
				if m := reRebuildMs.FindStringSubmatch(rest); m != nil {
					v, _ := strconv.ParseFloat(m[1], 64)
					lines, ms = append(lines, line), append(ms, v)
				}
			}
		}
		if len(ms) == 0 {
			continue
		}
		slices.Sort(ms)
		f.Edits[i].RebuildMs = ms[len(ms)/2]
		fmt.Fprintf(out, "%-22s rebuild median %.0f ms of %d\n%s\n", e.what, f.Edits[i].RebuildMs, len(ms), strings.Join(lines[max(0, len(lines)-2):], "\n"))
	}
	fmt.Fprintln(out)
	return f, nil
}

var reRebuildMs = regexp.MustCompile(`; (\d+) ms \(bundles `)

// targets: save to reloaded within each edit's time.
func (f devFigures) targets() []target {
	var out []target
	for _, e := range f.Edits {
		out = append(out, target{fmt.Sprintf("dev: %s saved to reloaded <= %.0f ms (median)", e.What, e.TargetMs), e.MedianMs <= e.TargetMs, fmt.Sprintf("%.0f ms", e.MedianMs)})
	}
	return out
}
