package generator

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/dop251/goja"
	"github.com/evanw/esbuild/pkg/api"

	"freightsite/data"
)

// bundles is what esbuild produced for one build.
type bundles struct {
	server []byte // IIFE defining globalThis.Site, requiring serverVendor
	// vendor names the versions of serverVendor's packages, which the
	// server bundle runs with (the render cache's key holds them).
	vendor string
	boot   string            // the inline script of every page
	files  map[string][]byte // client assets by path under dist/ ("assets/client-HASH.js")
	css    string            // URL path of the site stylesheet
	entry  string            // URL path of the client entry
	// entryImports are the chunks the entry imports statically (esbuild's
	// shared helpers), preloaded with it.
	entryImports []string
	// hydrate is what the entry imports once the page has painted: React
	// and the hydration code, with every chunk they import statically.
	hydrate []string
	// islands maps an island name to the URL paths a page with it must
	// load: the island's own chunk and every chunk it imports statically.
	islands map[string][]string
	// lazy maps an island name to what it may load later, on first use
	// (dynamic imports, and the files those point a Worker or a <link>
	// at), less what the page loads anyway.
	lazy map[string][]string
}

// hashedDir holds every file whose name carries its content hash; only it
// is cached as immutable (the translations beside it keep SPEC's names).
const hashedDir = "assets/build/"

var define = map[string]string{"process.env.NODE_ENV": `"production"`}

// defines are the build-time constants of the page bundles: define, plus
// RECAPTCHA_SITE_KEY (pages/lib/captcha.ts), empty for the self-hosted
// captcha.
func defines(recaptchaSiteKey string) map[string]string {
	d := maps.Clone(define)
	key, _ := json.Marshal(recaptchaSiteKey)
	d["RECAPTCHA_SITE_KEY"] = string(key)
	return d
}

// assetURLs lets page code import the public URL of a package file:
// `import href from 'url:altcha/altcha.css'` copies the file into the
// hashed assets and gives its path, for what code loads on first use (a
// Worker script, a stylesheet <link>). The server bundle never loads them
// and gets an empty string instead of a copy.
func assetURLs(emit bool) api.Plugin {
	return api.Plugin{Name: "asset-url", Setup: func(build api.PluginBuild) {
		build.OnResolve(api.OnResolveOptions{Filter: `^url:`}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
			r := build.Resolve(strings.TrimPrefix(args.Path, "url:"), api.ResolveOptions{ResolveDir: args.ResolveDir, Importer: args.Importer, Kind: api.ResolveJSImportStatement})
			if len(r.Errors) > 0 {
				return api.OnResolveResult{Errors: r.Errors}, nil
			}
			return api.OnResolveResult{Path: r.Path, Namespace: "asset-url"}, nil
		})
		build.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: "asset-url"}, func(args api.OnLoadArgs) (api.OnLoadResult, error) {
			if !emit {
				empty := `export default ""`
				return api.OnLoadResult{Contents: &empty, Loader: api.LoaderJS}, nil
			}
			raw, err := os.ReadFile(args.Path)
			if err != nil {
				return api.OnLoadResult{}, err
			}
			contents := string(raw)
			return api.OnLoadResult{Contents: &contents, Loader: api.LoaderFile}, nil
		})
	}}
}

// bundler holds the options of the three esbuild builds of the pages:
// the server bundle goja runs, the inline boot script and the client
// (islands, chunks and the stylesheet). Build runs each once; dev keeps
// an incremental context of each (api.Context) and rebuilds them.
type bundler struct {
	server, boot, client api.BuildOptions
	out                  string // the client's output folder, which no file is written to
	vendor               string // bundles.vendor
}

// pageImages are the images the server bundle knows of: QR, the URL path
// of the app's QR code (the global APP_QR_IMAGE), and Data, the images of
// data/images (SITE_IMAGES, JSON: dataimages.go).
type pageImages struct {
	QR, Data string
}

func (in *input) pageImages() pageImages {
	return pageImages{QR: "/" + in.qr.File, Data: in.images.manifestJSON()}
}

// newBundler sets up the three builds. siteJSON is the build's
// data/site.json (with its overrides); images are the server bundle's.
func newBundler(root string, langs []data.Language, siteJSON []byte, images pageImages, recaptchaSiteKey string) (bundler, error) {
	vendor, err := vendorVersions(root)
	if err != nil {
		return bundler{}, err
	}
	pages := filepath.Join(root, "pages")
	settings := settingsPlugin(filepath.Join(root, "data", "site.json"), siteJSON)
	serverDefine := defines(recaptchaSiteKey)
	serverDefine["APP_QR_IMAGE"] = strconv.Quote(images.QR)
	serverDefine["SITE_IMAGES"] = strconv.Quote(images.Data)
	table := make([][2]string, len(langs))
	for i, l := range langs {
		table[i] = [2]string{l.Code, l.Prefix}
	}
	languages, _ := json.Marshal(table)
	out := filepath.Join(root, ".esbuild-out")
	return bundler{
		out:    out,
		vendor: vendor,
		server: api.BuildOptions{
			AbsWorkingDir: root,
			EntryPoints:   []string{filepath.Join(pages, "server.tsx")},
			Bundle:        true,
			Format:        api.FormatIIFE,
			GlobalName:    "Site",
			Platform:      api.PlatformBrowser,
			// goja runs ES2020 natively: older targets only add
			// downlevelled code for it to interpret.
			Target:       api.ES2020,
			Define:       serverDefine,
			External:     serverVendorModules(),
			Plugins:      []api.Plugin{settings, assetURLs(false), memoIcons(root), browserOnly(root)},
			MinifySyntax: true,
			Write:        false,
			Outfile:      "server.js",
			LogLevel:     api.LogLevelSilent,
		},
		boot: api.BuildOptions{
			Define:        map[string]string{"LANGUAGES": string(languages)},
			AbsWorkingDir: root,
			EntryPoints:   []string{filepath.Join(pages, "boot.ts")},
			// Strict mode changes nothing this script does; its
			// "use strict" would only cost bytes of the 1.5 KB.
			TsconfigRaw:       `{"compilerOptions":{"alwaysStrict":false}}`,
			Bundle:            true,
			Format:            api.FormatIIFE,
			Platform:          api.PlatformBrowser,
			Target:            api.ES2020,
			MinifyWhitespace:  true,
			MinifyIdentifiers: true,
			MinifySyntax:      true,
			Write:             false,
			Outfile:           "boot.js",
			LogLevel:          api.LogLevelSilent,
		},
		client: api.BuildOptions{
			AbsWorkingDir:     root,
			EntryPoints:       []string{filepath.Join(pages, "client.tsx"), filepath.Join(pages, "styles", "site.css")},
			Bundle:            true,
			Splitting:         true,
			Format:            api.FormatESModule,
			Platform:          api.PlatformBrowser,
			Target:            api.ES2020,
			Define:            defines(recaptchaSiteKey),
			Plugins:           []api.Plugin{settings, assetURLs(true)},
			PublicPath:        "/",
			MinifyWhitespace:  true,
			MinifyIdentifiers: true,
			MinifySyntax:      true,
			LegalComments:     api.LegalCommentsNone,
			// V8's explicit compile hint: every function of a file is
			// compiled as the file is fetched, off the main thread,
			// instead of on the main thread when first called. A page
			// loads only the files it runs at once (React's hydration
			// above all) or on first use; on the registration page, the
			// heaviest, it halved Lighthouse's script boot-up time and
			// took Total Blocking Time from about 190 to about 110 ms
			// (medians of 7 audits, side by side).
			Banner:     map[string]string{"js": "//# allFunctionsCalledOnLoad"},
			EntryNames: hashedDir + "[name]-[hash]",
			ChunkNames: hashedDir + "[name]-[hash]",
			AssetNames: hashedDir + "[name]-[hash]",
			Outdir:     out,
			Metafile:   true,
			Write:      false,
			LogLevel:   api.LogLevelSilent,
		},
	}, nil
}

// bundle builds the three bundles (see newBundler).
func bundle(root string, langs []data.Language, siteJSON []byte, images pageImages, recaptchaSiteKey string) (*bundles, error) {
	b, client, err := bundleStaged(root, langs, siteJSON, images, recaptchaSiteKey)
	if err != nil {
		return nil, err
	}
	return b, client()
}

// bundleStaged builds the three bundles at once and returns as soon as
// the server bundle and the boot script are in: rendering needs only
// those, and the client bundle builds on while the pages render. client
// waits for it and adds its files and maps to b (once, from any
// goroutine).
func bundleStaged(root string, langs []data.Language, siteJSON []byte, images pageImages, recaptchaSiteKey string) (b *bundles, client func() error, err error) {
	o, err := newBundler(root, langs, siteJSON, images, recaptchaSiteKey)
	if err != nil {
		return nil, nil, err
	}
	var server, boot api.BuildResult
	var wg sync.WaitGroup
	wg.Go(func() { server = api.Build(o.server) })
	wg.Go(func() { boot = api.Build(o.boot) })
	wg.Wait()
	built := make(chan api.BuildResult, 1)
	go func() { built <- api.Build(o.client) }()
	if b, err = o.serverBundles(server, boot); err != nil {
		return nil, nil, err
	}
	return b, sync.OnceValue(func() error { return o.addClient(b, <-built) }), nil
}

// bundles reads what the three builds produced.
func (o bundler) bundles(server, boot, client api.BuildResult) (*bundles, error) {
	b, err := o.serverBundles(server, boot)
	if err != nil {
		return nil, err
	}
	return b, o.addClient(b, client)
}

// serverBundles reads the server bundle and the boot script.
func (o bundler) serverBundles(server, boot api.BuildResult) (*bundles, error) {
	b := &bundles{files: map[string][]byte{}, islands: map[string][]string{}, lazy: map[string][]string{}}
	if err := buildErr("server bundle", server); err != nil {
		return nil, err
	}
	b.server, b.vendor = server.OutputFiles[0].Contents, o.vendor
	if err := buildErr("boot script", boot); err != nil {
		return nil, err
	}
	b.boot = strings.TrimSpace(string(boot.OutputFiles[0].Contents))
	return b, nil
}

// addClient reads the client bundle into b.
func (o bundler) addClient(b *bundles, client api.BuildResult) error {
	if err := buildErr("client bundle", client); err != nil {
		return err
	}
	for _, f := range client.OutputFiles {
		rel, err := filepath.Rel(o.out, f.Path)
		if err != nil {
			return err
		}
		b.files[filepath.ToSlash(rel)] = f.Contents
	}
	return b.readMetafile(client.Metafile)
}

type metafile struct {
	Outputs map[string]struct {
		EntryPoint string `json:"entryPoint"`
		Imports    []struct {
			Path string `json:"path"`
			Kind string `json:"kind"`
		} `json:"imports"`
	} `json:"outputs"`
}

// serverVendor are the packages the server bundle leaves to the engine
// that runs it (the module a page imports, and the file loaded for it if
// not the package's own): React, its string renderer and i18next, two
// thirds of the code. esbuild bundles only the pages, lucide's icons and
// the data, a third of the code, on every build and every save of dev;
// Node's workers load the packages from node_modules while it bundles
// (node-worker.js), and goja runs them as one program of their own,
// bundled and compiled once a process (gojaVendor). Node runs React's
// string renderer as it is, goja the one stringRenderer gives it: the
// same pages (TestNodeRendersAsGoja).
var serverVendor = [][2]string{
	{"react", ""},
	{"react/jsx-runtime", ""},
	{"react-dom/server.browser", stringRendererFile},
	{"i18next", ""},
}

func serverVendorModules() []string {
	var names []string
	for _, v := range serverVendor {
		names = append(names, v[0])
	}
	return names
}

// vendorVersions names the versions of serverVendor's packages in root's
// node_modules.
func vendorVersions(root string) (string, error) {
	var versions []string
	for _, v := range serverVendor {
		pkg, _, _ := strings.Cut(v[0], "/")
		if slices.Contains(versions, pkg) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(root, "node_modules", pkg, "package.json"))
		if err != nil {
			return "", fmt.Errorf("%w (%v)", ErrNoNodeModules, err)
		}
		var p struct{ Version string }
		if err := json.Unmarshal(raw, &p); err != nil {
			return "", fmt.Errorf("reading node_modules/%s/package.json: %w", pkg, err)
		}
		versions = append(versions, pkg, p.Version)
	}
	return strings.Join(versions, " "), nil
}

// gojaVendors are the programs of gojaVendor, by source tree.
var gojaVendors sync.Map

// gojaVendor is serverVendor as one program for goja, after the
// polyfills: bundled with stringRenderer's React and compiled once a
// process, it defines require() for the server bundle. Each runtime runs
// it (in about 2 ms) before the server bundle.
func gojaVendor(root string) (*goja.Program, error) {
	once, _ := gojaVendors.LoadOrStore(root, sync.OnceValues(func() (*goja.Program, error) {
		var entry strings.Builder
		entry.WriteString("var __vendor = {")
		for _, v := range serverVendor {
			fmt.Fprintf(&entry, "%q: require(%q),", v[0], v[0])
		}
		entry.WriteString("};\nglobalThis.require = function (name) {\n  if (!(name in __vendor)) throw new Error('the server bundle requires ' + name + ', which serverVendor does not list');\n  return __vendor[name];\n};\n")
		r := api.Build(api.BuildOptions{
			Stdin:         &api.StdinOptions{Contents: entry.String(), ResolveDir: root, Sourcefile: "vendor.js"},
			AbsWorkingDir: root,
			Bundle:        true,
			Format:        api.FormatIIFE,
			Platform:      api.PlatformBrowser,
			Target:        api.ES2020,
			Define:        define,
			Plugins:       []api.Plugin{stringRenderer(root)},
			MinifySyntax:  true,
			Write:         false,
			LogLevel:      api.LogLevelSilent,
		})
		if err := buildErr("the server bundle's packages for goja", r); err != nil {
			return nil, err
		}
		program, err := goja.Compile("vendor.js", polyfills+string(r.OutputFiles[0].Contents), false)
		if err != nil {
			return nil, fmt.Errorf("compiling the server bundle's packages: %w", err)
		}
		return program, nil
	}))
	return once.(func() (*goja.Program, error))()
}

// readMetafile finds the stylesheet, the client entry and, for each island,
// the chunks it needs, so pages can preload exactly those.
func (b *bundles) readMetafile(raw string) error {
	var m metafile
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return fmt.Errorf("reading esbuild metafile: %w", err)
	}
	url := func(p string) string { return "/" + strings.TrimPrefix(path.Clean(p), ".esbuild-out/") }
	// closure adds p and what it imports of the given kinds, transitively.
	var closure func(p string, seen map[string]bool, kinds ...string)
	closure = func(p string, seen map[string]bool, kinds ...string) {
		if seen[p] {
			return
		}
		seen[p] = true
		for _, imp := range m.Outputs[p].Imports {
			if slices.Contains(kinds, imp.Kind) {
				closure(imp.Path, seen, kinds...)
			}
		}
	}
	sorted := func(set map[string]bool) []string {
		var out []string
		for p := range set {
			out = append(out, url(p))
		}
		sort.Strings(out)
		return out
	}
	for p, o := range m.Outputs {
		switch {
		case strings.HasSuffix(p, ".map"):
		case o.EntryPoint == "pages/styles/site.css":
			b.css = url(p)
		case o.EntryPoint == "pages/client.tsx":
			b.entry = url(p)
			files := map[string]bool{}
			closure(p, files, "import-statement")
			delete(files, p)
			b.entryImports = sorted(files)
		case o.EntryPoint == "pages/hydrate.tsx":
			files := map[string]bool{}
			closure(p, files, "import-statement")
			b.hydrate = sorted(files)
		case strings.HasPrefix(o.EntryPoint, "pages/islands/"):
			name := strings.TrimSuffix(path.Base(o.EntryPoint), path.Ext(o.EntryPoint))
			initial := map[string]bool{}
			closure(p, initial, "import-statement")
			b.islands[name] = sorted(initial)
			lazy := map[string]bool{}
			for q := range initial {
				for _, imp := range m.Outputs[q].Imports {
					if imp.Kind == "dynamic-import" {
						closure(imp.Path, lazy, "import-statement", "dynamic-import", "file-loader")
					}
				}
			}
			for q := range initial {
				delete(lazy, q)
			}
			b.lazy[name] = sorted(lazy)
		}
	}
	if b.css == "" || b.entry == "" || len(b.hydrate) == 0 {
		return fmt.Errorf("esbuild metafile names no stylesheet, client entry or hydration chunk")
	}
	return nil
}

// BundleError is esbuild's refusal of a bundle: each error with the file,
// line and column it was found at.
type BundleError struct {
	What     string // "server bundle", "boot script", "client bundle"
	Problems []Problem
	text     string // esbuild's own rendering of the errors, with the code
}

// Problem is one error in a source file (a slash path under the source
// tree, "pages/screens/Faq.tsx"); Line and Column count from 1, and are
// zero when the error has no place.
type Problem struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Message  string `json:"message"`
	LineText string `json:"lineText,omitempty"`
}

func (e *BundleError) Error() string { return "bundling " + e.What + ":\n" + e.text }

func buildErr(what string, r api.BuildResult) error {
	if len(r.Errors) == 0 {
		return nil
	}
	msgs := api.FormatMessages(r.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
	e := &BundleError{What: what, text: strings.Join(msgs, "")}
	for _, m := range r.Errors {
		p := Problem{Message: m.Text}
		if l := m.Location; l != nil {
			// esbuild's columns count from 0 (in UTF-8 bytes).
			p.File, p.Line, p.Column, p.LineText = filepath.ToSlash(l.File), l.Line, l.Column+1, l.LineText
		}
		e.Problems = append(e.Problems, p)
	}
	return e
}

// browserOnly leaves out of the server bundle what pages load with
// import(): code that runs on a visitor's first use of something (the
// captcha widget, upload progress, the outbox), never in a render. Each
// such import gives a module that throws if it is ever run, so the
// server bundle (its parse by esbuild, and by V8 or goja on every start)
// is a tenth smaller.
func browserOnly(root string) api.Plugin {
	return api.Plugin{Name: "browser-only", Setup: func(build api.PluginBuild) {
		build.OnResolve(api.OnResolveOptions{Filter: `.*`}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
			if args.Kind != api.ResolveJSDynamicImport {
				return api.OnResolveResult{}, nil
			}
			importer, err := filepath.Rel(root, args.Importer)
			if err != nil {
				importer = args.Importer
			}
			return api.OnResolveResult{Path: args.Path, Namespace: "browser-only", PluginData: filepath.ToSlash(importer)}, nil
		})
		build.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: "browser-only"}, func(args api.OnLoadArgs) (api.OnLoadResult, error) {
			text := fmt.Sprintf("throw new Error(%q);", fmt.Sprintf("%s (import() in %s) runs in the browser only: the server bundle leaves it out", args.Path, args.PluginData))
			return api.OnLoadResult{Contents: &text, Loader: api.LoaderJS}, nil
		})
	}}
}

// stringRendererFile is React's string renderer under node_modules.
const stringRendererFile = "react-dom/cjs/react-dom-server-legacy.browser.production.js"

// stringRenderer gives goja's packages (gojaVendor) React's string
// renderer alone (renderToString, renderToStaticMarkup: what
// pages/server.tsx imports from react-dom/server.browser), without the
// streaming half it never runs, and changes two things goja is slow at:
// it collects the render's chunks in an array joined once (goja copies
// the whole string on each `result += chunk`, so a page of many chunks
// cost time quadratic in its length), and escapes text with escapeHTML,
// in Go, instead of a regular expression (goja's are slow on Devanagari
// text; React's function still escapes numbers and booleans).
func stringRenderer(root string) api.Plugin {
	file := filepath.Join(root, "node_modules", filepath.FromSlash(stringRendererFile))
	edits := [][2]string{
		{`result = "",`, `result = [],`},
		{`null !== chunk && (result += chunk);`, `null !== chunk && result.push(chunk);`},
		{"  return result;\n}\nexports.renderToStaticMarkup", "  return result.join(\"\");\n}\nexports.renderToStaticMarkup"},
		{"function escapeTextForBrowser(text) {", "function escapeTextForBrowser(text) {\n  return \"string\" === typeof text ? " + escapeHTMLName + "(text) : escapeTextForBrowserInJS(text);\n}\nfunction escapeTextForBrowserInJS(text) {"},
	}
	plugin := editedModule("string-renderer", file, edits)
	setup := plugin.Setup
	plugin.Setup = func(build api.PluginBuild) {
		build.OnResolve(api.OnResolveOptions{Filter: `^react-dom/server\.browser$`}, func(api.OnResolveArgs) (api.OnResolveResult, error) {
			return api.OnResolveResult{Path: file}, nil
		})
		setup(build)
	}
	return plugin
}

// editedModule loads file with each edit's first string, which it must
// hold once, replaced by its second.
func editedModule(name, file string, edits [][2]string) api.Plugin {
	return api.Plugin{Name: name, Setup: func(build api.PluginBuild) {
		build.OnLoad(api.OnLoadOptions{Filter: "^" + regexp.QuoteMeta(file) + "$"}, func(api.OnLoadArgs) (api.OnLoadResult, error) {
			raw, err := os.ReadFile(file)
			if err != nil {
				return api.OnLoadResult{}, err
			}
			text := string(raw)
			for _, e := range edits {
				if strings.Count(text, e[0]) != 1 {
					return api.OnLoadResult{}, fmt.Errorf("%s no longer has %q once: update the %s plugin for this version", file, e[0], name)
				}
				text = strings.Replace(text, e[0], e[1], 1)
			}
			return api.OnLoadResult{Contents: &text, Loader: api.LoaderJS, ResolveDir: filepath.Dir(file)}, nil
		})
	}}
}

// memoIcons makes each lucide icon of the server bundle build its
// element once for each set of props (its name, size, class, ...) rather
// than on every render: the icons of the navigation and footer come back
// on every page, and building them (the SVG's attributes, its children)
// was a tenth of a page's render in Node. React renders the same element
// to the same markup. Props holding an object or a function (children,
// a ref) are built every time, as before.
func memoIcons(root string) api.Plugin {
	file := filepath.Join(root, "node_modules", "lucide-react", "dist", "esm", "Icon.mjs")
	edits := [][2]string{
		{"const Icon = forwardRef(\n  ({", memoIconJS + "const Icon = forwardRef(memoIcon(\n  ({"},
		{"\n);\n\nexport { Icon as default };", "\n));\n\nexport { Icon as default };"},
	}
	return editedModule("memo-icons", file, edits)
}

const memoIconJS = `const memoIconRenders = new Map();
function memoIcon(render) {
  return (props, ref) => {
    const key = ref == null ? memoIconKey(props) : undefined;
    if (key === undefined) return render(props, ref);
    let element = memoIconRenders.get(key);
    if (element === undefined) {
      element = render(props, ref);
      memoIconRenders.set(key, element);
    }
    return element;
  };
}
function memoIconKey(props) {
  let key = JSON.stringify(useLucideContext() ?? {});
  for (const name in props) {
    const value = props[name];
    if (name === "icon" && value && typeof value.name === "string") key += "\u0000icon\u0000" + value.name;
    else if (value === undefined || (name === "ref" && value === null)) continue;
    else if (value !== null && (typeof value === "object" || typeof value === "function")) return undefined;
    else key += "\u0000" + name + "\u0000" + typeof value + ":" + String(value);
  }
  return key;
}
`
