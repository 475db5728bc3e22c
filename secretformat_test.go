package edapp_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"path"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/edapp-go/edapp"
	"github.com/edapp-go/edapp/safetyculture"
	"github.com/edapp-go/edapp/v1"
	"github.com/edapp-go/edapp/webhook"
)

const modulePath = "github.com/edapp-go/edapp"

// secretPackages are where a type that holds a secret may live: the public
// packages, and the internal ones they hold secrets through. Only the
// public packages' types need a sample.
var secretPackages = map[string]bool{
	".": true, "safetyculture": true, "v1": true, "webhook": true, "usersync": true,
	"internal/core": false, "internal/transport": false,
}

// secretWords mark a field that holds a secret, by its name.
var secretWords = []string{"secret", "token", "password", "headers"}

// typeGraph is every struct and named type of the parsed packages: the
// names of the types each one's fields refer to ("pkg.Type"), and whether
// a field's name marks a secret.
type typeGraph struct {
	refs   map[string][]string
	marked map[string]bool
}

// secretBearing returns the exported types of the public packages that
// hold a secret: a field named for one, a type named Secret, or a field
// whose type holds one, through any depth of fields, pointers, slices and
// maps, in any of the parsed packages.
func (g *typeGraph) secretBearing(public map[string]bool) []string {
	bearing := map[string]bool{}
	for t := range g.refs { // a builtin a marked field holds is no secret type
		bearing[t] = g.marked[t] || strings.HasSuffix(t, ".Secret")
	}
	for changed := true; changed; { // until no type is added
		changed = false
		for t, refs := range g.refs {
			for _, r := range refs {
				if !bearing[t] && bearing[r] {
					bearing[t], changed = true, true
				}
			}
		}
	}
	var out []string
	for t := range g.refs {
		i := strings.LastIndex(t, ".")
		pkg, name := cmp.Or(t[:i], "."), t[i+1:]
		if public[pkg] && ast.IsExported(name) && bearing[t] {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// addFile adds f's types, in package pkg ("." for the root), to g.
func (g *typeGraph) addFile(pkg string, f *ast.File) {
	imports := map[string]string{} // the module's packages, by the name this file uses
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p != modulePath && !strings.HasPrefix(p, modulePath+"/") {
			continue
		}
		name := path.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imports[name] = cmp.Or(strings.TrimPrefix(p, modulePath+"/"), ".")
		if p == modulePath {
			imports[name] = "."
		}
	}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, s := range gd.Specs {
			ts := s.(*ast.TypeSpec)
			key := typeKey(pkg, ts.Name.Name)
			if _, fn := ts.Type.(*ast.FuncType); fn {
				continue // an option: a func prints as an address
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				g.refs[key] = append(g.refs[key], refsOf(pkg, imports, ts.Type)...)
				continue
			}
			for _, field := range st.Fields.List {
				g.refs[key] = append(g.refs[key], refsOf(pkg, imports, field.Type)...)
				for _, n := range field.Names {
					if marksSecret(n.Name) {
						g.marked[key] = true
						// A named type a marked field holds is one too:
						// WebhookHeaders, through Webhook.Headers.
						for _, r := range refsOf(pkg, imports, field.Type) {
							g.marked[r] = true
						}
					}
				}
			}
		}
	}
}

func typeKey(pkg, name string) string {
	if pkg == "." {
		return "." + name
	}
	return pkg + "." + name
}

func marksSecret(field string) bool {
	lower := strings.ToLower(field)
	for _, w := range secretWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// refsOf names the types that e refers to: the module's, and (harmlessly)
// builtins, which hold nothing.
func refsOf(pkg string, imports map[string]string, e ast.Expr) []string {
	var out []string
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok {
				if p, ok := imports[x.Name]; ok {
					out = append(out, typeKey(p, n.Sel.Name))
				}
			}
			return false
		case *ast.Ident:
			out = append(out, typeKey(pkg, n.Name))
		}
		return true
	})
	return out
}

// parseTypeGraph parses the packages' non-test files.
func parseTypeGraph(t *testing.T) *typeGraph {
	t.Helper()
	g := &typeGraph{refs: map[string][]string{}, marked: map[string]bool{}}
	dirs := slices.Collect(maps.Keys(secretPackages))
	for dir, files := range parsePackages(t, dirs) {
		for _, f := range files {
			g.addFile(dir, f)
		}
	}
	return g
}

// The secret every sample holds, and what it looks like printed in hex.
const planted = "tok-0123456789abcdef-SECRET"

// secretSamples are a value of each secret-bearing type, holding planted.
func secretSamples(t *testing.T) map[string]any {
	t.Helper()
	client, err := edapp.NewClient(planted, edapp.WithBaseURL("https://api.example.test"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := safetyculture.NewClient(planted)
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := v1.New(client)
	if err != nil {
		t.Fatal(err)
	}
	// In UTC: fmt reads a time's location by reflection, and time.Local is
	// set up lazily by the first test that parses a time, so a local time
	// here would race with the tests running beside this one.
	link, err := edapp.ParseLaunchLink("https://web.edapp.com/launch?token="+planted+"&lesson=l1", time.Now().UTC())
	if err != nil {
		t.Fatal(err)
	}
	h, err := webhook.NewHandler(func(context.Context, edapp.Event) error { return nil }, webhook.WithSecretHeader("X-Webhook-Secret", planted))
	if err != nil {
		t.Fatal(err)
	}
	headers := edapp.WebhookHeaders{"X-Webhook-Secret": planted}
	samples := map[string]any{
		".UserCreateParams":      edapp.UserCreateParams{Username: "a", Password: planted},
		".UserUpdateParams":      edapp.UserUpdateParams{Password: &[]string{planted}[0]},
		"v1.UserToken":           userToken(t),
		".Client":                client,
		".Secret":                edapp.NewSecret(planted),
		".LaunchLink":            link,
		".Webhook":               &edapp.Webhook{ID: "w1", Headers: headers},
		".WebhookCreateParams":   edapp.WebhookCreateParams{WebHookURL: "https://hooks.example.test", Headers: headers},
		".WebhookHeaders":        headers,
		".WebhooksService":       client.Webhooks,
		"safetyculture.Client":   sc,
		"v1.Client":              legacy,
		"webhook.Handler":        h,
		"safetyculture.FeedPage": feedPage(t),
	}
	for _, c := range []any{client, sc, legacy} { // the services hold their client
		v := reflect.ValueOf(c).Elem()
		for i := range v.NumField() {
			if f := v.Field(i); v.Type().Field(i).IsExported() && f.Kind() == reflect.Pointer {
				samples[sampleKey(f.Type().Elem())] = f.Interface()
			}
		}
	}
	return samples
}

// sampleKey names t as the type graph does: ".Client", "v1.UsersService".
func sampleKey(t reflect.Type) string {
	return typeKey(cmp.Or(strings.TrimPrefix(strings.TrimPrefix(t.PkgPath(), modulePath), "/"), "."), t.Name())
}

// feedPage is a safetyculture.FeedPage, which holds its client (and so
// the token, planted) to follow its next_page.
func feedPage(t *testing.T) any {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"metadata":{"next_page":"/feed/groups?next=2"},"data":[{"id":"g1"}]}`)
	}))
	t.Cleanup(srv.Close)
	sc, err := safetyculture.NewClient(planted, edapp.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	page, err := sc.Feeds.ListGroups(context.Background(), nil)
	if err != nil {
		t.Fatalf("the feed page sample: %v", err)
	}
	return page
}

// userToken is a v1.UserToken holding planted, as a service answers it.
func userToken(t *testing.T) v1.UserToken {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"token":"`+planted+`"}`)
	}))
	t.Cleanup(srv.Close)
	c, err := edapp.NewClient("t", edapp.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := v1.New(c)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := legacy.Users.Token(context.Background(), "u1")
	if err != nil || tok.Value() != planted {
		t.Fatalf("the token sample: %v", err)
	}
	return tok
}

// TestSecretsNeverPrint: every type that holds a secret, found by its
// fields, prints no part of it under any fmt verb, log/slog, encoding/json
// or encoding.TextMarshaler.
func TestSecretsNeverPrint(t *testing.T) {
	t.Parallel()
	public := map[string]bool{}
	for p, pub := range secretPackages {
		public[p] = pub
	}
	found := parseTypeGraph(t).secretBearing(public)
	samples := secretSamples(t)
	for _, typ := range found {
		v, ok := samples[typ]
		if !ok {
			t.Errorf("%s holds a secret and has no sample here: add one", typ)
			continue
		}
		for _, leak := range leaks(v) {
			t.Errorf("%s: %s", typ, leak)
		}
	}
	t.Logf("secret-bearing types: %v", found)
	if len(found) < 8 {
		t.Errorf("found only %d secret-bearing types (%v); the walk missed some", len(found), found)
	}
}

// leakySecret is the second secret type safetyculture once had: String and
// GoString only.
type leakySecret struct{ value string }

func (s leakySecret) String() string   { return "safetyculture.Secret(redacted)" }
func (s leakySecret) GoString() string { return s.String() }

// TestSecretsNeverPrintFailsOnASecondSecret: a second Secret type is found
// by its name, and printing it leaks under %d, %x and JSON.
func TestSecretsNeverPrintFailsOnASecondSecret(t *testing.T) {
	t.Parallel()
	src := `package safetyculture

type Secret struct{ value string }

type Client struct{ hook Secret }
`
	f, err := parser.ParseFile(token.NewFileSet(), "planted.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	g := &typeGraph{refs: map[string][]string{}, marked: map[string]bool{}}
	g.addFile("safetyculture", f)
	if got := g.secretBearing(map[string]bool{"safetyculture": true}); !reflect.DeepEqual(got, []string{"safetyculture.Client", "safetyculture.Secret"}) {
		t.Errorf("found %v; want the planted Secret and the Client that holds it", got)
	}
	if got := leaks(leakySecret{planted}); len(got) == 0 {
		t.Error("the planted Secret prints nothing of itself")
	}
}

// leaks prints v every way and returns the ways that show the secret.
func leaks(v any) []string {
	var out []string
	check := func(how, s string) {
		if strings.Contains(s, planted) || strings.Contains(s, hex.EncodeToString([]byte(planted))) ||
			strings.Contains(strings.ToLower(s), strings.ToLower(hex.EncodeToString([]byte(planted)))) {
			out = append(out, how+" shows the secret")
		}
	}
	values := []any{v}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer {
		values = append(values, rv.Elem().Interface())
	}
	for _, x := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
			check(fmt.Sprintf("%T under %s", x, verb), fmt.Sprintf(verb, x))
		}
		var buf bytes.Buffer
		slog.New(slog.NewJSONHandler(&buf, nil)).Info("m", "v", x)
		slog.New(slog.NewTextHandler(&buf, nil)).Info("m", "v", x)
		check(fmt.Sprintf("%T in slog", x), buf.String())
		if b, err := json.Marshal(x); err == nil {
			check(fmt.Sprintf("%T in JSON", x), string(b))
		}
		if m, ok := x.(encoding.TextMarshaler); ok {
			if b, err := m.MarshalText(); err == nil {
				check(fmt.Sprintf("%T as text", x), string(b))
			}
		}
	}
	return out
}
