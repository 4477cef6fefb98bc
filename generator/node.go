package generator

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
)

// The Node engine runs the server bundle in V8, in worker processes of
// Node (node-worker.js), behind the same interface as goja's runtimes
// (engine): V8 renders a page in about a quarter of goja's time, and Node
// is on every machine that builds the site (npm ci needs it). The pages
// are the same bytes either way (TestNodeRendersAsGoja): the same bundle,
// the same polyfills, the same escaping.

//go:embed node-worker.js
var nodeWorker string

// engine is what renders: goja's runtimes (renderer) or Node's workers
// (nodeEngine).
type engine interface {
	routes() ([]routeInfo, error)
	favicon() (string, error)
	render(path, lang string, year int) (page, error)
	// renderAll renders the jobs, telling done (if not nil) of each
	// as soon as its page is in (from any goroutine).
	renderAll(jobs []*job, done func(*job)) error
	close()
}

// Renderers an Options.Renderer may name.
const (
	RendererAuto = ""     // Node's workers where node runs, goja's runtimes otherwise
	RendererNode = "node" // Node's workers (the build fails without node)
	RendererGoja = "goja" // goja's runtimes, in the process
)

// nodeWorkers are Node processes started before the server bundle exists
// (starting Node takes as long as a bundle), which init gives it to.
type nodeWorkers struct {
	procs []*nodeProc
}

// nodeProc is one worker. Calls may overlap: the worker answers in the
// order it is asked, so a call reads its answer once the call sent
// before it has read its own (turn), and the worker starts on the next
// page while the generator reads the last one.
type nodeProc struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	mu   sync.Mutex    // orders the requests and their turns
	next int64         // the last request's id
	turn chan struct{} // closed once the last request's answer is read
}

// startNode starts n workers, or says why it cannot (no node on PATH).
// Each loads serverVendor from root's node_modules as it starts.
func startNode(n int, root string) (*nodeWorkers, error) {
	bin, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("node is not installed (the build renders in goja without it): %w", err)
	}
	w := &nodeWorkers{}
	vendor, err := json.Marshal(serverVendor)
	if err != nil {
		return nil, err
	}
	if root, err = filepath.Abs(root); err != nil {
		return nil, err
	}
	for range n {
		// Short runs gain nothing from V8's optimising compiler; its
		// compiling would take the cores the build needs.
		cmd := exec.Command(bin, "--no-opt", "--max-semi-space-size=16", "-e", nodeWorker, filepath.Join(root, "pages"), string(vendor))
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			w.close()
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			w.close()
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			w.close()
			return nil, fmt.Errorf("starting node: %w", err)
		}
		turn := make(chan struct{})
		close(turn)
		w.procs = append(w.procs, &nodeProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16), turn: turn})
	}
	return w, nil
}

func (w *nodeWorkers) close() {
	for _, p := range w.procs {
		p.in.Close()
		p.cmd.Process.Kill()
		p.cmd.Wait()
	}
	w.procs = nil
}

// callsPerWorker is how many calls a worker is given at once: the next
// page waits in its input while the generator reads the last.
const callsPerWorker = 2

// nodeEngine is started workers, each running the server bundle.
type nodeEngine struct {
	w    *nodeWorkers
	pool chan *nodeProc // a worker for each call it may take
	runGlobals
}

// init runs the server bundle with these globals in every worker.
func (w *nodeWorkers) init(server []byte, globals map[string]string) (*nodeEngine, error) {
	e := &nodeEngine{w: w, pool: make(chan *nodeProc, callsPerWorker*len(w.procs)), runGlobals: runGlobals{globals: globals}}
	// The parts follow the init line as they are (node-worker.js).
	names := slices.Sorted(maps.Keys(globals))
	parts := [][2]any{{"program", len(polyfills) + len(server)}}
	payload := make([]byte, 0, len(polyfills)+len(server)+len(globals["LOCALES"])+1024)
	payload = append(append(payload, polyfills...), server...)
	for _, name := range names {
		parts = append(parts, [2]any{name, len(globals[name])})
		payload = append(payload, globals[name]...)
	}
	errs := make(chan error, len(w.procs))
	for _, p := range w.procs {
		go func() {
			errs <- p.call(map[string]any{"op": "init", "parts": parts}, payload, nil)
		}()
	}
	var failed error
	for range w.procs {
		if err := <-errs; err != nil && failed == nil {
			failed = fmt.Errorf("starting the server bundle in node: %w", err)
		}
	}
	if failed != nil {
		w.close()
		return nil, failed
	}
	for range callsPerWorker {
		for _, p := range w.procs {
			e.pool <- p
		}
	}
	return e, nil
}

// call sends one request (and the bytes after its line, if any) and reads
// its answer into result.
func (p *nodeProc) call(req map[string]any, after []byte, result any) error {
	p.mu.Lock()
	p.next++
	req["id"] = p.next
	b, err := json.Marshal(req)
	if err == nil {
		_, err = p.in.Write(append(append(b, '\n'), after...))
	}
	if err != nil {
		p.mu.Unlock()
		return fmt.Errorf("node worker: %w", err)
	}
	before, mine := p.turn, make(chan struct{})
	p.turn = mine
	p.mu.Unlock()
	<-before
	// The value decodes straight into result (an interface holding a
	// pointer is decoded into); a page's body follows the line.
	answer := struct {
		OK    any     `json:"ok"`
		Error *string `json:"error"`
		After int     `json:"after"`
	}{OK: result}
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		err = fmt.Errorf("node worker ended: %w", err)
	} else if err = json.Unmarshal(line, &answer); err != nil {
		err = fmt.Errorf("reading node's answer: %w", err)
	} else if answer.After > 0 {
		err = p.readBody(answer.After, result)
	}
	close(mine)
	if err != nil {
		return err
	}
	if answer.Error != nil {
		return &nodeError{stack: *answer.Error}
	}
	return nil
}

// nodeError is what a call threw in a worker: its stack as V8 writes it,
// "Error: MESSAGE\n    at F (server.js:LINE:COLUMN)\n...", the lines
// counted in the polyfills and the server bundle as one program.
type nodeError struct{ stack string }

func (e *nodeError) Error() string { return e.stack }

// readBody reads the n bytes that follow an answer's line into result,
// a page's body.
func (p *nodeProc) readBody(n int, result any) error {
	pg, ok := result.(*page)
	if !ok {
		return fmt.Errorf("reading node's answer: %d bytes follow an answer that is not a page", n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(p.out, body); err != nil {
		return fmt.Errorf("node worker ended: %w", err)
	}
	pg.Body = string(body)
	return nil
}

func (e *nodeEngine) do(req map[string]any, result any) error {
	p := <-e.pool
	defer func() { e.pool <- p }()
	return p.call(req, nil, result)
}

func (e *nodeEngine) routes() ([]routeInfo, error) {
	var out []routeInfo
	if err := e.do(map[string]any{"op": "routes"}, &out); err != nil {
		return nil, fmt.Errorf("listing routes: %w", err)
	}
	return out, nil
}

func (e *nodeEngine) favicon() (string, error) {
	var out string
	if err := e.do(map[string]any{"op": "favicon"}, &out); err != nil {
		return "", fmt.Errorf("rendering the favicon: %w", err)
	}
	return out, nil
}

func (e *nodeEngine) render(path, lang string, year int) (page, error) {
	var p page
	if err := e.do(map[string]any{"op": "render", "path": path, "lang": lang, "year": year}, &p); err != nil {
		return page{}, fmt.Errorf("rendering %s in %s: %w", path, lang, err)
	}
	return p, nil
}

// renderAll renders every job, as many at once as there are workers.
func (e *nodeEngine) renderAll(jobs []*job, done func(*job)) error {
	return renderEach(jobs, cap(e.pool), e.render, done)
}

func (e *nodeEngine) close() { e.w.close() }

// setTexts gives every worker new texts once none is rendering (see
// renderer.setTexts).
func (e *nodeEngine) setTexts(changed, locales string) error {
	_, release := holdAll(e.pool)
	defer release()
	for _, p := range e.w.procs {
		if err := p.call(map[string]any{"op": "setTexts", "texts": changed}, nil, nil); err != nil {
			return fmt.Errorf("giving the workers new texts: %w", err)
		}
	}
	e.setLocales(locales)
	return nil
}

// renderEach renders jobs, n at a time, with render, telling done (if
// not nil) of each.
func renderEach(jobs []*job, n int, render func(path, lang string, year int) (page, error), done func(*job)) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	next := make(chan *job)
	for range n {
		wg.Go(func() {
			for j := range next {
				p, err := render(j.route, j.lang, j.year)
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					continue
				}
				j.page = p
				if done != nil {
					// The runtime takes its next page while this
					// one's document is made.
					wg.Go(func() { done(j) })
				}
			}
		})
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	return first
}

// engineStart is how a build starts its engine: Node's workers (started
// at once when the build will render, so they start while esbuild
// bundles) or goja's runtimes.
type engineStart struct {
	renderer  string
	root      string // the source tree, whose node_modules Node's workers load
	node      *nodeWorkers
	nodeCount int
	used      bool
}

// startEngine readies what renderer names (Options.Renderer); a build
// with no node renders in goja unless it asked for node. eager starts
// Node's workers now: a build with a render cache may render nothing, and
// starts them only if it does.
func startEngine(renderer, root string, eager bool) (*engineStart, error) {
	s := &engineStart{renderer: renderer, root: root}
	if _, err := exec.LookPath("node"); err != nil && renderer == RendererAuto {
		s.renderer = RendererGoja
	}
	switch s.renderer {
	case RendererGoja:
		return s, nil
	case RendererAuto, RendererNode:
		if eager {
			return s, s.startNode()
		}
		return s, nil
	}
	return nil, fmt.Errorf("renderer %q: want %s or %s (or nothing: node where it runs)", renderer, RendererNode, RendererGoja)
}

// nodeWorkerCount is how many workers a build starts: one for every
// two cores. A worker costs a Node process's start and its own warm-up
// (V8 compiles the bundle's functions as each is first run), more than
// its share of a site's renders once warm, and the Go side of a build
// (esbuild, the news archive, compressing and writing files) runs beside
// the renders on the other cores.
func nodeWorkerCount() int { return max(1, runtime.NumCPU()/2) }

func (s *engineStart) startNode() error {
	w, err := startNode(nodeWorkerCount(), s.root)
	if err != nil {
		if s.renderer == RendererNode {
			return err
		}
		s.renderer = RendererGoja
		return nil
	}
	s.node, s.nodeCount = w, len(w.procs)
	return nil
}

// engine runs the server bundle of the source tree root with these
// globals.
func (s *engineStart) engine(root string, server []byte, globals map[string]string) (engine, error) {
	if s.node == nil && s.renderer != RendererGoja {
		if err := s.startNode(); err != nil {
			return nil, err
		}
	}
	if s.node != nil {
		s.used = true
		return s.node.init(server, globals)
	}
	return newRenderer(root, server, globals)
}

// inProcess says whether the pages render in this process (goja).
func (s *engineStart) inProcess() bool { return s.renderer == RendererGoja }

// workers is how many Node processes the build started.
func (s *engineStart) workers() int {
	if s.node == nil {
		return 0
	}
	return s.nodeCount
}

// stop ends workers that were never used.
func (s *engineStart) stop() {
	if s.node != nil && !s.used {
		s.node.close()
	}
}
