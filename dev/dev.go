// Package dev is `freightsite dev`'s loop: it builds the site into memory
// (generator.Dev), watches pages/, locales/ and data/, rebuilds on each
// save, tells the open pages to reload (or to swap the stylesheet) over
// server-sent events, shows build, render and type errors over the page
// and in the terminal, and runs the TypeScript compiler's watch mode
// beside it.
package dev

import (
	"bufio"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"freightsite/generator"
	"freightsite/internal/site"
)

//go:embed live.js
var liveScript []byte

// liveSrc is the script's address in the pages: its version in the query,
// so a reload takes it from the browser's cache (served immutable) and a
// new build of freightsite gives a new address. It is deferred: the page
// is parsed and shown without waiting for it.
var liveSrc = func() string {
	sum := sha256.Sum256(liveScript)
	return livePath + "?v=" + hex.EncodeToString(sum[:6])
}()

const (
	livePath   = "/__dev/live.js"
	eventsPath = "/__dev/events"
)

// Options of the dev loop.
type Options struct {
	Build     generator.Options // Root is the source tree; Out is not used
	Out       io.Writer         // the terminal: one line per rebuild, and the errors
	TypeCheck bool              // run tsc --watch beside the loop
}

// Server is a running dev loop.
type Server struct {
	opts Options
	root string
	gen  *generator.Dev
	ctx  context.Context
	stop context.CancelFunc
	done sync.WaitGroup

	outMu sync.Mutex // one line at a time on the terminal

	mu      sync.Mutex
	clients map[*client]bool
	build   []generator.Problem // the last rebuild's errors (the last good build is served)
	types   []generator.Problem // the type check's last errors
}

type client struct {
	path   string
	events chan event
}

type event struct{ name, data string }

// Start builds the site and starts watching until ctx ends (the event
// streams end then too, so a server stopping does not wait for the open
// pages) or Close.
func Start(ctx context.Context, opts Options) (*Server, error) {
	root, err := filepath.Abs(opts.Build.Root)
	if err != nil {
		return nil, err
	}
	opts.Build.Root = root
	ctx, stop := context.WithCancel(ctx)
	s := &Server{opts: opts, root: root, ctx: ctx, stop: stop, clients: map[*client]bool{}}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		stop()
		return nil, err
	}
	for _, dir := range []string{"pages", "locales", "data"} {
		if err := s.watchTree(w, filepath.Join(root, dir)); err != nil {
			w.Close()
			stop()
			return nil, err
		}
	}
	began := time.Now()
	inject := `<script src="` + liveSrc + `" defer></script>`
	s.gen, err = generator.NewDev(opts.Build, inject, s.renderFailed)
	if err != nil {
		w.Close()
		stop()
		return nil, err
	}
	s.printf("built in memory in %d ms; watching pages/, locales/ and data/", time.Since(began).Milliseconds())
	s.done.Go(func() { s.watch(w) })
	if opts.TypeCheck {
		s.done.Go(s.typeCheck)
	}
	return s, nil
}

// Close stops watching, the type check and the open event streams.
func (s *Server) Close() {
	s.stop()
	s.done.Wait()
	s.gen.Close()
}

// Built says what the pages carry (serve's checks).
func (s *Server) Built() site.Built { return s.gen.Built() }

// Handler serves the site held in memory as `serve` serves a built one,
// plus the live-reload script and its event stream.
func (s *Server) Handler(news site.NewsLookup) http.Handler {
	site := s.gen.Handler(news)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case livePath:
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			if r.URL.RequestURI() == liveSrc {
				w.Header().Set("Cache-Control", "max-age=31536000, immutable")
			} else {
				w.Header().Set("Cache-Control", "no-cache")
			}
			w.Write(liveScript)
		case eventsPath:
			s.events(w, r)
		default:
			site.ServeHTTP(w, r)
		}
	})
}

// events streams a page's events until it goes or the loop stops.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // the stream outlives the server's write timeout
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	c := &client{path: r.URL.Query().Get("path"), events: make(chan event, 16)}
	s.mu.Lock()
	s.clients[c] = true
	c.events <- event{"status", s.statusLocked()}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.clients, c)
		s.mu.Unlock()
	}()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		case e := <-c.events:
			if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, e.data); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		}
	}
}

// statusLocked is the "status" event's data: the errors to show.
func (s *Server) statusLocked() string {
	b, _ := json.Marshal(struct {
		Build []generator.Problem `json:"build"`
		Types []generator.Problem `json:"types"`
	}{append([]generator.Problem{}, s.build...), append([]generator.Problem{}, s.types...)})
	return string(b)
}

// broadcastLocked sends every page (send's choice of) event.
func (s *Server) broadcastLocked(send func(c *client) (event, bool)) {
	for c := range s.clients {
		if e, ok := send(c); ok {
			select {
			case c.events <- e:
			default: // a page that reads nothing loses events, not the loop
			}
		}
	}
}

func (s *Server) setErrors(build, types *[]generator.Problem) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if build != nil {
		s.build = *build
	}
	if types != nil {
		s.types = *types
	}
	status := s.statusLocked()
	s.broadcastLocked(func(*client) (event, bool) { return event{"status", status}, true })
}

func (s *Server) printf(format string, args ...any) {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	fmt.Fprintf(s.opts.Out, time.Now().Format("15:04:05")+" "+format+"\n", args...)
}

// watchTree watches dir and every folder in it.
func (s *Server) watchTree(w *fsnotify.Watcher, dir string) error {
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return w.Add(p)
		}
		return nil
	})
}

// settle is how long the loop waits after a change for the rest of a
// save (editors write, rename and touch in steps).
const settle = 10 * time.Millisecond

func (s *Server) watch(w *fsnotify.Watcher) {
	defer w.Close()
	for {
		changed := map[string]bool{}
		var timer <-chan time.Time
	collect:
		for {
			select {
			case <-s.ctx.Done():
				return
			case err := <-w.Errors:
				s.printf("watching: %v", err)
			case ev := <-w.Events:
				if ev.Has(fsnotify.Create) {
					if info, err := os.Stat(ev.Name); err == nil && info.IsDir() {
						_ = s.watchTree(w, ev.Name)
					}
				}
				rel, err := filepath.Rel(s.root, ev.Name)
				if err != nil || ev.Op == fsnotify.Chmod || ignored(filepath.Base(ev.Name)) {
					continue
				}
				changed[filepath.ToSlash(rel)] = true
				timer = time.After(settle)
			case <-timer:
				break collect
			}
		}
		files := make([]string, 0, len(changed))
		for f := range changed {
			files = append(files, f)
		}
		s.rebuild(files)
	}
}

// ignored are editors' scratch files: hidden, backups, swap files, and
// names without an extension (sed -i's and vim's temporary files).
func ignored(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasSuffix(name, "~") || strings.HasSuffix(name, ".swp") || filepath.Ext(name) == ""
}

// rebuild runs one rebuild and tells the pages.
func (s *Server) rebuild(changed []string) {
	s.mu.Lock()
	var viewed []string
	for c := range s.clients {
		viewed = append(viewed, c.path)
	}
	s.mu.Unlock()
	what := strings.Join(changed, ", ")
	rep, err := s.gen.Rebuild(changed, viewed)
	if err != nil {
		problems := Problems(err)
		s.printf("%s: rebuild failed, serving the last good build:\n%s", what, describe(problems))
		s.setErrors(&problems, nil)
		return
	}
	rebuilt := strings.Join(rep.Bundles, ", ")
	if len(rep.Texts) > 0 {
		rebuilt = strings.TrimPrefix(rebuilt+", texts of "+strings.Join(rep.Texts, ", "), ", ")
	}
	if rebuilt == "" {
		rebuilt = "nothing changed"
	}
	pages := ""
	if n := len(rep.Changed); n > 0 {
		pages = fmt.Sprintf("; %d pages to render again", n)
	}
	if len(rep.Rendered) > 0 {
		pages += ", rendered " + strings.Join(rep.Rendered, " ")
	}
	s.printf("%s: %s%s; %d ms (bundles %d, runtimes %d, pages %d)", what, rebuilt, pages, rep.Duration.Milliseconds(), rep.Bundle.Milliseconds(), rep.Start.Milliseconds(), rep.Render.Milliseconds())
	s.mu.Lock()
	defer s.mu.Unlock()
	s.build = nil
	status := s.statusLocked()
	s.broadcastLocked(func(c *client) (event, bool) {
		switch {
		case rep.StyleOnly:
			return event{"css", rep.Stylesheet}, true
		case rep.All || rep.Changed[s.gen.PageOf(c.path)]:
			return event{"reload", ""}, true
		}
		return event{"status", status}, true
	})
}

// renderFailed reports a page that threw when it was first asked for.
func (s *Server) renderFailed(err error) {
	problems := Problems(err)
	s.printf("rendering failed:\n%s", describe(problems))
	s.setErrors(&problems, nil)
}

// Problems are an error's places in the source, when it has them.
func Problems(err error) []generator.Problem {
	var be *generator.BundleError
	var re *generator.RenderError
	switch {
	case errors.As(err, &be):
		return be.Problems
	case errors.As(err, &re):
		return []generator.Problem{re.Problem}
	}
	return []generator.Problem{{Message: err.Error()}}
}

// describe is the terminal's text of problems, one line each.
func describe(problems []generator.Problem) string {
	var b strings.Builder
	for _, p := range problems {
		if p.File != "" {
			fmt.Fprintf(&b, "  %s:%d:%d: %s\n", p.File, p.Line, p.Column, p.Message)
		} else {
			fmt.Fprintf(&b, "  %s\n", p.Message)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// tscError is one error line of tsc --pretty false.
var tscError = regexp.MustCompile(`^(.+)\((\d+),(\d+)\): error (TS\d+: .*)$`)

// typeCheck runs tsc in watch mode (at a lower priority than the loop)
// and reports each of its rounds; it never holds a rebuild back.
func (s *Server) typeCheck() {
	tsc := filepath.Join(s.root, "node_modules", ".bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		s.printf("type check: %s is missing (run npm ci); no type checking", tsc)
		return
	}
	args := []string{tsc, "-p", filepath.Join("pages", "tsconfig.json"), "--noEmit", "--watch", "--pretty", "false", "--preserveWatchOutput"}
	if nice, err := exec.LookPath("nice"); err == nil {
		args = append([]string{nice, "-n", "10"}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = s.root
	// tsc starts a process of its own: stop the whole group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		s.printf("type check: %v", err)
		return
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		s.printf("type check: %v", err)
		return
	}
	stopped := make(chan struct{})
	go func() {
		select {
		case <-s.ctx.Done():
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		case <-stopped:
		}
	}()
	defer func() {
		close(stopped)
		_ = cmd.Wait()
	}()
	var round []generator.Problem
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if m := tscError.FindStringSubmatch(line); m != nil {
			l, _ := strconv.Atoi(m[2])
			c, _ := strconv.Atoi(m[3])
			round = append(round, generator.Problem{File: filepath.ToSlash(m[1]), Line: l, Column: c, Message: m[4]})
			continue
		}
		if strings.HasPrefix(line, "  ") && len(round) > 0 { // a message's further lines
			round[len(round)-1].Message += "\n" + strings.TrimSpace(line)
			continue
		}
		if strings.Contains(line, "Watching for file changes") {
			if len(round) == 0 {
				s.printf("type check: no errors")
			} else {
				s.printf("type check: %d errors (the pages still reload):\n%s", len(round), describe(round))
			}
			types := round
			s.setErrors(nil, &types)
			round = nil
		}
	}
}
