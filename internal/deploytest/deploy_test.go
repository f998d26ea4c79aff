package deploytest

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v4"

	"github.com/rebound-hq/rebound/internal/config"
)

// root is the repository root, from this package's directory.
const root = "../.."

// extraVars are variables read outside internal/config (cmd/api's rate
// limit) or by the images the compose file runs for the databases.
var extraVars = []string{"API_RATE_PER_SECOND", "API_RATE_BURST"}

// knownVars lists every variable the binaries read, with the _FILE forms
// of the secrets.
func knownVars() map[string]bool {
	known := map[string]bool{}
	t := reflect.TypeFor[config.Config]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("env"), ",")
		if name == "" || name == "-" {
			continue
		}
		known[name] = true
		if t.Field(i).Tag.Get("secret") != "" {
			known[name+"_FILE"] = true
		}
	}
	for _, v := range extraVars {
		known[v] = true
	}
	return known
}

// decodeAll parses every document of a YAML stream strictly: a syntax
// error, a duplicate key or a tab indentation fails.
func decodeAll(r io.Reader) ([]any, error) {
	dec := yaml.NewDecoder(r)
	var docs []any
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if v != nil {
			docs = append(docs, v)
		}
	}
}

func TestEveryYAMLFileParsesStrictly(t *testing.T) {
	var files []string
	err := filepath.WalkDir(filepath.Join(root, "deploy"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ext := filepath.Ext(path); !d.IsDir() && (ext == ".yaml" || ext == ".yml") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 8 {
		t.Fatalf("found %d YAML files under deploy/: %v", len(files), files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := decodeAll(bytes.NewReader(b))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(docs) == 0 {
			t.Errorf("%s: no document", f)
		}
	}
	// The strict decoder does refuse what it must.
	for _, bad := range []string{"a: 1\na: 2\n", "a:\n\tb: 1\n", "a: [1, 2\n"} {
		if _, err := decodeAll(strings.NewReader(bad)); err == nil {
			t.Errorf("decodeAll accepted %q", bad)
		}
	}
}

// Kubernetes shapes, only the fields checked here.
type (
	meta struct {
		Name      string            `yaml:"name"`
		Namespace string            `yaml:"namespace"`
		Labels    map[string]string `yaml:"labels"`
	}
	probe struct {
		HTTPGet *struct {
			Path string `yaml:"path"`
			Port any    `yaml:"port"`
		} `yaml:"httpGet"`
	}
	container struct {
		Name  string `yaml:"name"`
		Image string `yaml:"image"`
		Ports []struct {
			Name          string `yaml:"name"`
			ContainerPort int    `yaml:"containerPort"`
		} `yaml:"ports"`
		Env []struct {
			Name  string `yaml:"name"`
			Value string `yaml:"value"`
		} `yaml:"env"`
		LivenessProbe   *probe `yaml:"livenessProbe"`
		ReadinessProbe  *probe `yaml:"readinessProbe"`
		SecurityContext struct {
			AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
			ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
			RunAsNonRoot             *bool `yaml:"runAsNonRoot"`
			Capabilities             struct {
				Drop []string `yaml:"drop"`
			} `yaml:"capabilities"`
		} `yaml:"securityContext"`
		Resources struct {
			Requests map[string]string `yaml:"requests"`
			Limits   map[string]string `yaml:"limits"`
		} `yaml:"resources"`
	}
	podSpec struct {
		TerminationGracePeriodSeconds *int `yaml:"terminationGracePeriodSeconds"`
		SecurityContext               struct {
			RunAsNonRoot *bool  `yaml:"runAsNonRoot"`
			RunAsUser    *int64 `yaml:"runAsUser"`
		} `yaml:"securityContext"`
		Containers []container `yaml:"containers"`
	}
	object struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   meta   `yaml:"metadata"`
		Spec       struct {
			Selector struct {
				MatchLabels map[string]string `yaml:"matchLabels"`
			} `yaml:"selector"`
			Template struct {
				Metadata meta    `yaml:"metadata"`
				Spec     podSpec `yaml:"spec"`
			} `yaml:"template"`
			ScaleTargetRef struct {
				Kind string `yaml:"kind"`
				Name string `yaml:"name"`
			} `yaml:"scaleTargetRef"`
			MinReplicas *int `yaml:"minReplicas"`
		} `yaml:"spec"`
		Data       map[string]string `yaml:"data"`
		StringData map[string]string `yaml:"stringData"`
	}
)

// render runs `kubectl kustomize deploy/k8s`.
func render(t *testing.T) []byte {
	t.Helper()
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("kubectl not found: this machine kind ships it (/usr/bin/kubectl)")
		}
		t.Skip("kubectl not installed; deploy/k8s rendering not checked")
	}
	cmd := exec.Command(kubectl, "kustomize", filepath.Join(root, "deploy", "k8s"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl kustomize deploy/k8s: %v\n%s", err, stderr.Bytes())
	}
	return out
}

func TestKustomizeBase(t *testing.T) {
	out := render(t)
	raw, err := decodeAll(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("rendered output: %v", err)
	}
	var objs []object
	dec := yaml.NewDecoder(bytes.NewReader(out))
	for {
		var o object
		if err := dec.Decode(&o); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o)
	}
	if len(objs) != len(raw) {
		t.Fatalf("%d typed objects, %d documents", len(objs), len(raw))
	}
	byKind := map[string][]object{}
	for _, o := range objs {
		if o.APIVersion == "" || o.Kind == "" || o.Metadata.Name == "" {
			t.Errorf("object without apiVersion, kind or name: %+v", o.Metadata)
		}
		if o.Kind != "Namespace" && o.Metadata.Namespace != "rebound" {
			t.Errorf("%s/%s in namespace %q, want rebound", o.Kind, o.Metadata.Name, o.Metadata.Namespace)
		}
		if o.Metadata.Labels["app.kubernetes.io/part-of"] != "rebound" {
			t.Errorf("%s/%s lacks the part-of label", o.Kind, o.Metadata.Name)
		}
		byKind[o.Kind] = append(byKind[o.Kind], o)
	}
	want := map[string]int{"Namespace": 1, "ConfigMap": 1, "Secret": 1, "Job": 1, "Deployment": 2, "Service": 1,
		"PodDisruptionBudget": 2, "HorizontalPodAutoscaler": 1}
	for kind, n := range want {
		if len(byKind[kind]) != n {
			t.Errorf("%d %s objects, want %d", len(byKind[kind]), kind, n)
		}
	}

	known := knownVars()
	settings := map[string]string{}
	for _, o := range append(byKind["ConfigMap"], byKind["Secret"]...) {
		for k, v := range o.Data {
			settings[k] = v
		}
		for k, v := range o.StringData {
			settings[k] = v
		}
	}
	for k := range settings {
		if !known[k] {
			t.Errorf("ConfigMap/Secret sets %s, which no binary reads", k)
		}
	}
	// The ConfigMap's values are ones the binaries accept (secrets aside).
	cfgVars := map[string]string{}
	for _, o := range byKind["ConfigMap"] {
		for k, v := range o.Data {
			cfgVars[k] = v
		}
	}
	if _, err := config.LoadFrom(cfgVars); err != nil {
		t.Errorf("ConfigMap values refused by config.LoadFrom: %v", err)
	}
	shutdown, err := time.ParseDuration(settings["SHUTDOWN_TIMEOUT"])
	if err != nil {
		t.Fatalf("SHUTDOWN_TIMEOUT in the ConfigMap: %v", err)
	}

	workloads := append(slices.Clone(byKind["Deployment"]), byKind["Job"]...)
	for _, o := range workloads {
		name := o.Kind + "/" + o.Metadata.Name
		pod := o.Spec.Template.Spec
		if sc := pod.SecurityContext; sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
			t.Errorf("%s: pod securityContext must set runAsNonRoot: true and a non-zero runAsUser", name)
		}
		if len(pod.Containers) == 0 {
			t.Errorf("%s: no container", name)
		}
		for _, c := range pod.Containers {
			cn := name + " container " + c.Name
			sc := c.SecurityContext
			if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.ReadOnlyRootFilesystem == nil ||
				!*sc.ReadOnlyRootFilesystem || !slices.Contains(sc.Capabilities.Drop, "ALL") {
				t.Errorf("%s: securityContext must forbid privilege escalation, make the root read-only and drop ALL capabilities", cn)
			}
			if c.Resources.Requests["cpu"] == "" || c.Resources.Requests["memory"] == "" || c.Resources.Limits["memory"] == "" {
				t.Errorf("%s: resources must request cpu and memory and limit memory: %+v", cn, c.Resources)
			}
			if !strings.HasPrefix(c.Image, "ghcr.io/rebound-hq/rebound-") || !strings.Contains(c.Image, ":") {
				t.Errorf("%s: image %q not set by the kustomization's images", cn, c.Image)
			}
			if o.Kind != "Deployment" {
				continue
			}
			ports := map[string]int{}
			for _, p := range c.Ports {
				ports[p.Name] = p.ContainerPort
			}
			for _, pr := range []struct {
				kind string
				p    *probe
			}{{"liveness", c.LivenessProbe}, {"readiness", c.ReadinessProbe}} {
				if pr.p == nil || pr.p.HTTPGet == nil || pr.p.HTTPGet.Path == "" {
					t.Errorf("%s: no HTTP %s probe", cn, pr.kind)
					continue
				}
				port, ok := pr.p.HTTPGet.Port.(string)
				if !ok || ports[port] == 0 {
					t.Errorf("%s: %s probe port %v is not a named container port", cn, pr.kind, pr.p.HTTPGet.Port)
				}
			}
			// The process listens where the probes knock.
			listen := settings["API_ADDR"]
			if c.Name == "worker" {
				listen = ""
				for _, e := range c.Env {
					if e.Name == "WORKER_HTTP_ADDR" {
						listen = e.Value
					}
				}
			}
			host, port, err := net.SplitHostPort(listen)
			if err != nil || host != "" || port != strconv.Itoa(ports["http"]) {
				t.Errorf("%s: listens on %q; want all interfaces on the http port %d", cn, listen, ports["http"])
			}
		}
		if o.Kind == "Deployment" {
			grace := 30
			if pod.TerminationGracePeriodSeconds != nil {
				grace = *pod.TerminationGracePeriodSeconds
			}
			// SHUTDOWN_TIMEOUT, plus the worker's 10s drain of cancelled
			// handlers, plus 5s to close.
			need := shutdown + 5*time.Second
			if o.Metadata.Name == "rebound-worker" {
				need += 10 * time.Second
			}
			if time.Duration(grace)*time.Second < need {
				t.Errorf("%s: terminationGracePeriodSeconds %d is short of %v (SHUTDOWN_TIMEOUT %v and the drain)", name, grace, need, shutdown)
			}
			var pdb bool
			for _, p := range byKind["PodDisruptionBudget"] {
				pdb = pdb || reflect.DeepEqual(p.Spec.Selector.MatchLabels, o.Spec.Selector.MatchLabels)
			}
			if !pdb {
				t.Errorf("%s: no PodDisruptionBudget selects it", name)
			}
			for k, v := range o.Spec.Selector.MatchLabels {
				if o.Spec.Template.Metadata.Labels[k] != v {
					t.Errorf("%s: selector %s=%s does not match the pod labels", name, k, v)
				}
			}
		}
	}
	var apiScaled bool
	for _, h := range byKind["HorizontalPodAutoscaler"] {
		apiScaled = apiScaled || (h.Spec.ScaleTargetRef.Kind == "Deployment" && h.Spec.ScaleTargetRef.Name == "rebound-api")
	}
	if !apiScaled {
		t.Error("no HorizontalPodAutoscaler targets Deployment rebound-api")
	}
}

// TestKustomizationListsEveryManifest catches a manifest added to
// deploy/k8s but left out of the base.
func TestKustomizationListsEveryManifest(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "deploy", "k8s", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		Resources []string `yaml:"resources"`
	}
	if err := yaml.Unmarshal(b, &k); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "deploy", "k8s", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		if n := filepath.Base(f); n != "kustomization.yaml" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	listed := slices.Sorted(slices.Values(k.Resources))
	if !slices.Equal(names, listed) {
		t.Errorf("deploy/k8s holds %v, the kustomization lists %v", names, listed)
	}
}

func TestComposeFile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "deploy", "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Services map[string]struct {
			Image string `yaml:"image"`
			Build *struct {
				Context    string `yaml:"context"`
				Dockerfile string `yaml:"dockerfile"`
				Target     string `yaml:"target"`
			} `yaml:"build"`
			Environment map[string]string `yaml:"environment"`
			DependsOn   map[string]struct {
				Condition string `yaml:"condition"`
			} `yaml:"depends_on"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"postgres", "redis", "migrate", "api", "worker"} {
		if _, ok := c.Services[name]; !ok {
			t.Errorf("compose file has no service %s", name)
		}
	}
	docker, err := os.ReadFile(filepath.Join(root, "deploy", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	stages := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^FROM\s+\S+\s+AS\s+(\S+)`).FindAllSubmatch(docker, -1) {
		stages[string(m[1])] = true
	}
	known := knownVars()
	for name, s := range c.Services {
		for dep := range s.DependsOn {
			if _, ok := c.Services[dep]; !ok {
				t.Errorf("service %s depends on unknown service %s", name, dep)
			}
		}
		if s.Build == nil {
			if s.Image == "" {
				t.Errorf("service %s has neither image nor build", name)
			}
			continue
		}
		if s.Build.Dockerfile != "deploy/Dockerfile" || s.Build.Context != ".." || !stages[s.Build.Target] {
			t.Errorf("service %s builds %+v; want context .., deploy/Dockerfile and one of its stages %v", name, *s.Build, stages)
		}
		for k := range s.Environment {
			if !known[k] {
				t.Errorf("service %s sets %s, which no binary reads", name, k)
			}
		}
		if _, err := config.LoadFrom(s.Environment); err != nil {
			t.Errorf("service %s: environment refused by config.LoadFrom: %v", name, err)
		}
	}
	for _, name := range []string{"api", "worker"} {
		if c.Services[name].DependsOn["migrate"].Condition != "service_completed_successfully" {
			t.Errorf("%s must wait for the migration to complete", name)
		}
	}
	if c.Services["migrate"].DependsOn["postgres"].Condition != "service_healthy" {
		t.Error("migrate must wait for a healthy postgres")
	}
	// Images run as the distroless non-root user, built without cgo.
	if !regexp.MustCompile(`(?m)^USER 65532:65532$`).Match(docker) || regexp.MustCompile(`(?m)^USER (root|0)\b`).Match(docker) ||
		!bytes.Contains(docker, []byte("CGO_ENABLED=0")) {
		t.Error("Dockerfile must build with CGO_ENABLED=0 and run as USER 65532:65532")
	}
	for _, s := range []string{"api", "worker", "cli"} {
		if !stages[s] {
			t.Errorf("Dockerfile has no %s stage", s)
		}
	}
}

// TestStaticBinaries builds each command with CGO_ENABLED=0, as the
// Dockerfile does, and checks the result needs no dynamic loader.
func TestStaticBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds three binaries")
	}
	dir := t.TempDir()
	for _, cmd := range []string{"api", "worker", "rebound"} {
		out := filepath.Join(dir, cmd)
		build := exec.Command("go", "build", "-trimpath", "-o", out, "./cmd/"+cmd)
		build.Dir = root
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := build.CombinedOutput(); err != nil {
			t.Fatalf("CGO_ENABLED=0 go build ./cmd/%s: %v\n%s", cmd, err, b)
		}
		if err := static(out); err != nil {
			t.Errorf("cmd/%s: %v", cmd, err)
		}
	}
}

// static reports an error when the ELF file at path needs a dynamic loader
// or shared libraries.
func static(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("dynamically linked (has an interpreter)")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		return fmt.Errorf("needs shared libraries %v", libs)
	}
	return nil
}
