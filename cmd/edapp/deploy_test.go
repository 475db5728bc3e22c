package main

import (
	"bytes"
	"context"
	"errors"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The deployment files docs/operations.md shows.
const (
	kubernetesDir = "../../deploy/kubernetes"
	systemdDir    = "../../deploy/systemd"
)

// k8sObject is the part of a Kubernetes object the tests read.
type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Template    k8sPodTemplate `yaml:"template"` // Deployment
		JobTemplate struct {
			Spec struct {
				Template         k8sPodTemplate `yaml:"template"`
				PodFailurePolicy struct {
					Rules []struct {
						Action      string `yaml:"action"`
						OnExitCodes struct {
							Values []int `yaml:"values"`
						} `yaml:"onExitCodes"`
					} `yaml:"rules"`
				} `yaml:"podFailurePolicy"`
			} `yaml:"spec"`
		} `yaml:"jobTemplate"` // CronJob
	} `yaml:"spec"`
}

type k8sPodTemplate struct {
	Spec struct {
		Containers []k8sContainer `yaml:"containers"`
	} `yaml:"spec"`
}

type k8sContainer struct {
	Name    string   `yaml:"name"`
	Image   string   `yaml:"image"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []k8sEnv `yaml:"env"`
	EnvFrom []any    `yaml:"envFrom"`
}

type k8sEnv struct {
	Name      string `yaml:"name"`
	Value     string `yaml:"value"`
	ValueFrom struct {
		SecretKeyRef struct {
			Name string `yaml:"name"`
			Key  string `yaml:"key"`
		} `yaml:"secretKeyRef"`
	} `yaml:"valueFrom"`
}

// containers returns the containers of a CronJob's or a Deployment's pods.
func (o k8sObject) containers() []k8sContainer {
	switch o.Kind {
	case "CronJob":
		return o.Spec.JobTemplate.Spec.Template.Spec.Containers
	case "Deployment":
		return o.Spec.Template.Spec.Containers
	}
	return nil
}

// readK8sObjects decodes every document of every YAML file in dir.
func readK8sObjects(t *testing.T, dir string) []k8sObject {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in %s (%v)", dir, err)
	}
	var objs []k8sObject
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(false)
		for {
			var o k8sObject
			if err := dec.Decode(&o); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			objs = append(objs, o)
		}
	}
	return objs
}

// productionSection is docs/operations.md, the page "Run it in production".
func productionSection(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "# Run it in production\n") {
		t.Fatal(`docs/operations.md does not start with "# Run it in production"`)
	}
	return string(b)
}

// readmeSecretNames are the variables of docs/operations.md's environment file
// (the block after "<!-- deploy: environment -->"), the keys of the Secret.
func readmeSecretNames(t *testing.T, section string) []string {
	t.Helper()
	_, block, ok := strings.Cut(section, "<!-- deploy: environment -->\n```")
	if !ok {
		t.Fatal("the production section has no block after <!-- deploy: environment -->")
	}
	_, block, _ = strings.Cut(block, "\n")
	block, _, _ = strings.Cut(block, "```")
	names := regexp.MustCompile(`(?m)^([A-Z][A-Z0-9_]*)=`).FindAllStringSubmatch(block, -1)
	var out []string
	for _, m := range names {
		out = append(out, m[1])
	}
	if len(out) == 0 {
		t.Fatal("docs/operations.md's environment file names no variable")
	}
	return out
}

func TestKubernetesManifestsAgreeWithReadme(t *testing.T) {
	t.Parallel()
	section := productionSection(t)
	m := regexp.MustCompile("scripts/image ([^ `\n]+)").FindStringSubmatch(section)
	if m == nil {
		t.Fatal("the production section shows no `scripts/image IMAGE` line")
	}
	image := m[1]
	secret := regexp.MustCompile(`kubectl create secret generic ([a-z0-9-]+)`).FindStringSubmatch(section)
	if secret == nil {
		t.Fatal("the production section shows no `kubectl create secret generic NAME`")
	}
	names := readmeSecretNames(t, section)
	used := map[string]bool{}
	kinds := map[string]int{}
	for _, o := range readK8sObjects(t, kubernetesDir) {
		kinds[o.Kind]++
		for _, c := range o.containers() {
			checkK8sContainer(t, o, c, image, section)
			for _, e := range c.Env {
				ref := e.ValueFrom.SecretKeyRef
				if slices.Contains(names, e.Name) && (ref.Name != secret[1] || ref.Key != e.Name) {
					t.Errorf("%s %s: %s from secret %q key %q, want secret %q key %q",
						o.Kind, o.Metadata.Name, e.Name, ref.Name, ref.Key, secret[1], e.Name)
				}
				if ref.Key != "" {
					used[ref.Key] = true
				}
			}
		}
	}
	if kinds["CronJob"] == 0 || kinds["Deployment"] == 0 {
		t.Errorf("manifests hold %v, want a CronJob and a Deployment", kinds)
	}
	if got := slices.Sorted(maps.Keys(used)); !slices.Equal(got, slices.Sorted(slices.Values(names))) {
		t.Errorf("the manifests take secret keys %v; docs/operations.md's environment file names %v", got, names)
	}
}

// checkK8sContainer checks one container against docs/operations.md: its image,
// its command (shown in docs/operations.md, and a command of this binary), and
// that no secret is written into the manifest.
func checkK8sContainer(t *testing.T, o k8sObject, c k8sContainer, image, section string) {
	t.Helper()
	where := o.Kind + " " + o.Metadata.Name
	if c.Image != image {
		t.Errorf("%s: image %q, docs/operations.md builds %q", where, c.Image, image)
	}
	if len(c.Command) > 0 || len(c.Args) == 0 {
		t.Errorf("%s: command %q args %q; want the image's entrypoint and edapp's arguments", where, c.Command, c.Args)
	}
	line := "edapp " + strings.Join(c.Args, " ")
	if !strings.Contains(section, "`"+line+"`") {
		t.Errorf("%s runs `%s`, which docs/operations.md does not show", where, line)
	}
	if !isEdappCommand(c.Args) {
		t.Errorf("%s: `%s` is not a command of edapp", where, line)
	}
	if len(c.EnvFrom) > 0 {
		t.Errorf("%s: envFrom; name each variable, so that the Secret's keys are docs/operations.md's", where)
	}
	for _, e := range c.Env {
		if e.Value != "" && (strings.Contains(e.Name, "TOKEN") || strings.Contains(e.Name, "SECRET") || strings.Contains(e.Name, "_DB")) {
			t.Errorf("%s: %s is written into the manifest; take it from the Secret", where, e.Name)
		}
	}
}

// isEdappCommand says whether args name a command of edapp: "edapp help --
// ARGS" shows that command's help, not its parent's. (It checks the
// command, not its flags.)
func isEdappCommand(args []string) bool {
	path := "edapp"
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			break
		}
		path += " " + a
	}
	var out strings.Builder
	code := run(context.Background(), append([]string{"help", "--"}, args...), strings.NewReader(""), &out, io.Discard,
		func(string) string { return "" })
	return code == exitOK && path != "edapp" && strings.Contains(out.String(), "Usage:\n  "+path+" ") &&
		!strings.Contains(out.String(), "Unknown help topic")
}

func TestSystemdUnitsTakeSecretsFromEnvironmentFile(t *testing.T) {
	t.Parallel()
	names := readmeSecretNames(t, productionSection(t))
	units, err := filepath.Glob(filepath.Join(systemdDir, "*.service"))
	if err != nil || len(units) < 2 {
		t.Fatalf("units in %s: %v (%v)", systemdDir, units, err)
	}
	for _, u := range units {
		b, err := os.ReadFile(u)
		if err != nil {
			t.Fatal(err)
		}
		unit := string(b)
		if !strings.Contains(unit, "\nEnvironmentFile=/etc/edapp/db.env\n") {
			t.Errorf("%s: no EnvironmentFile=/etc/edapp/db.env", u)
		}
		for _, l := range strings.Split(unit, "\n") {
			if !strings.HasPrefix(l, "Exec") {
				continue
			}
			for _, secret := range append(names, "--token", "--secret-header", "--db") {
				if strings.Contains(l, secret) {
					t.Errorf("%s: %q on the command line: %s", u, secret, l)
				}
			}
		}
	}
}

// TestMainImportsRootsAndZones guards what lets the binary run in the
// scratch image (Containerfile), which has no CA bundle and no zone
// database: main.go links both in.
func TestMainImportsRootsAndZones(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var imports []string
	for _, spec := range f.Imports {
		imports = append(imports, strings.Trim(spec.Path.Value, `"`))
	}
	for _, want := range []string{"golang.org/x/crypto/x509roots/fallback", "time/tzdata"} {
		if !slices.Contains(imports, want) {
			t.Errorf("main.go does not import %s: the scratch image would lack it", want)
		}
	}
}

// TestRejectsExitCodeInDeployments: a run that finished with rejected
// records is a success for the Kubernetes CronJobs (which set
// EDAPP_REJECTS_EXIT_CODE=0, since a pod failure policy cannot mark a Job
// succeeded) and for the systemd export unit (SuccessExitStatus=3, the
// default code).
func TestRejectsExitCodeInDeployments(t *testing.T) {
	t.Parallel()
	jobs := 0
	for _, o := range readK8sObjects(t, kubernetesDir) {
		if o.Kind != "CronJob" {
			continue
		}
		jobs++
		for _, c := range o.containers() {
			i := slices.IndexFunc(c.Env, func(e k8sEnv) bool { return e.Name == "EDAPP_REJECTS_EXIT_CODE" })
			if i < 0 || c.Env[i].Value != "0" {
				t.Errorf("CronJob %s: no EDAPP_REJECTS_EXIT_CODE=0", o.Metadata.Name)
			}
		}
		for _, r := range o.Spec.JobTemplate.Spec.PodFailurePolicy.Rules {
			if r.Action == "FailJob" && slices.Contains(r.OnExitCodes.Values, exitRejected) {
				t.Errorf("CronJob %s: exit code %d fails the Job", o.Metadata.Name, exitRejected)
			}
		}
	}
	if jobs == 0 {
		t.Fatal("no CronJob")
	}
	b, err := os.ReadFile(filepath.Join(systemdDir, "edapp-export@.service"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\nSuccessExitStatus=3\n") || strings.Contains(string(b), "EDAPP_REJECTS_EXIT_CODE") {
		t.Error("edapp-export@.service: want SuccessExitStatus=3 and the default rejects exit code")
	}
}

// TestSystemdUnitsReadOnlyTheirSecrets: each unit reads the environment
// files of the variables it uses and no other: the database URL's, and
// the export its source's token (the instance's file), the receiver its
// secret header and no API token. docs/operations.md names the same files.
func TestSystemdUnitsReadOnlyTheirSecrets(t *testing.T) {
	t.Parallel()
	section := productionSection(t)
	for unit, want := range map[string][]string{
		"edapp-export@.service":  {"/etc/edapp/db.env", "/etc/edapp/%i.env"},
		"edapp-webhooks.service": {"/etc/edapp/db.env", "/etc/edapp/webhooks.env"},
	} {
		b, err := os.ReadFile(filepath.Join(systemdDir, unit))
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, m := range regexp.MustCompile(`(?m)^EnvironmentFile=-?(\S+)$`).FindAllStringSubmatch(string(b), -1) {
			files = append(files, m[1])
		}
		if !slices.Equal(files, want) {
			t.Errorf("%s reads %v, want %v", unit, files, want)
		}
		// Only the Go runtime's own settings, which hold no secret, may be
		// set in the unit itself.
		for _, m := range regexp.MustCompile(`(?m)^Environment=(\w+)=`).FindAllStringSubmatch(string(b), -1) {
			if m[1] != "GOMEMLIMIT" {
				t.Errorf("%s: %s set outside its files", unit, m[1])
			}
		}
		if strings.Contains(string(b), "LoadCredential") {
			t.Errorf("%s: credentials loaded outside its files", unit)
		}
	}
	for file, variable := range map[string]string{"db.env": "EDAPP_EXPORT_DB", "edapp.env": "EDAPP_API_TOKEN",
		"safetyculture.env": "SAFETYCULTURE_API_TOKEN", "webhooks.env": "EDAPP_WEBHOOK_SECRET"} {
		if !strings.Contains(section, "grep '^"+variable+"=' edapp.env > /etc/edapp/"+file) {
			t.Errorf("docs/operations.md does not put %s in /etc/edapp/%s", variable, file)
		}
	}
}
