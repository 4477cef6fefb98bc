package csvsafe

import (
	"bytes"
	"os"
	"testing"

	"github.com/dop251/goja"
	"github.com/evanw/esbuild/pkg/api"
)

// cells are values a spreadsheet would run as formulas (OWASP CSV
// injection, with the spaces and signs that slip past a first-character
// check) and values it reads as data.
var cells = []struct{ in, want string }{
	{`=1+1`, `'=1+1`},
	{`+1+1`, `'+1+1`},
	{`-2+3+cmd|' /C calc'!A0`, `'-2+3+cmd|' /C calc'!A0`},
	{`-1+1`, `'-1+1`},
	{`@SUM(A1:A9)`, `'@SUM(A1:A9)`},
	{`=HYPERLINK("http://evil.example","click")`, `'=HYPERLINK("http://evil.example","click")`},
	{` =1+1`, `' =1+1`},
	{"\n=1+1", "'\n=1+1"},
	{"\t=1+1", "'\t=1+1"},
	{"\tplain", "'\tplain"},
	{"\rplain", "'\rplain"},
	{`+91 98200 12345`, `'+91 98200 12345`},
	{`-`, `'-`},
	{`-x`, `'-x`},
	{`-1e5`, `'-1e5`},
	{`-.5`, `'-.5`},
	{`--1`, `'--1`},
	{`-250.75`, `-250.75`},
	{`-1500.00`, `-1500.00`},
	{`+5`, `+5`},
	{`-1,250.00`, `-1,250.00`},
	{` -250.75`, ` -250.75`},
	{`250.75`, `250.75`},
	{`1+1`, `1+1`},
	{`ravi@example.in`, `ravi@example.in`},
	{`Sahyadri Roadlines`, `Sahyadri Roadlines`},
	{`श्री गणेश ट्रांसपोर्ट`, `श्री गणेश ट्रांसपोर्ट`},
	{``, ``},
	{` `, ` `},
}

func TestCell(t *testing.T) {
	for _, c := range cells {
		if got := Cell(c.in); got != c.want {
			t.Errorf("Cell(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	if err := NewWriter(&b).WriteAll([][]string{{"email", "amount"}, {"=1+1@x.in", "-250.75"}, {"-2+3+cmd|' /C calc'!A0", "ok"}}); err != nil {
		t.Fatal(err)
	}
	want := "email,amount\n'=1+1@x.in,-250.75\n'-2+3+cmd|' /C calc'!A0,ok\n"
	if b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}

// TestSameRuleInTheBrowser: pages/lib/csv.ts, which writes the CSV the
// site makes in the browser, neutralises exactly the cells Cell does, and
// quotes what CSV needs quoted.
func TestSameRuleInTheBrowser(t *testing.T) {
	src, err := os.ReadFile("../../pages/lib/csv.ts")
	if err != nil {
		t.Fatal(err)
	}
	out := api.Transform(string(src), api.TransformOptions{Loader: api.LoaderTS, Format: api.FormatIIFE, GlobalName: "csv", Target: api.ES2017})
	if len(out.Errors) > 0 {
		t.Fatalf("compiling csv.ts: %v", out.Errors)
	}
	vm := goja.New()
	if _, err := vm.RunString(string(out.Code)); err != nil {
		t.Fatal(err)
	}
	lib := vm.Get("csv").ToObject(vm)
	formulaSafe, _ := goja.AssertFunction(lib.Get("formulaSafe"))
	csvCell, _ := goja.AssertFunction(lib.Get("csvCell"))
	call := func(f goja.Callable, v string) string {
		t.Helper()
		r, err := f(goja.Undefined(), vm.ToValue(v))
		if err != nil {
			t.Fatal(err)
		}
		return r.String()
	}
	for _, c := range cells {
		if got := call(formulaSafe, c.in); got != c.want {
			t.Errorf("formulaSafe(%q) = %q, want %q (as Cell)", c.in, got, c.want)
		}
	}
	for in, want := range map[string]string{
		`=HYPERLINK("x")`: `"'=HYPERLINK(""x"")"`,
		"a,b":             `"a,b"`,
		"-2+3,x":          `"'-2+3,x"`,
		"-250.75":         `-250.75`,
		"plain":           `plain`,
	} {
		if got := call(csvCell, in); got != want {
			t.Errorf("csvCell(%q) = %q, want %q", in, got, want)
		}
	}
}
