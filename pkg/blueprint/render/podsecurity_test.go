package render

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
)

// restrictedPodSpec passes the restricted level: every case of
// TestPodSecurityLevels changes one thing of it.
const restrictedPodSpec = `
securityContext:
  runAsNonRoot: true
  seccompProfile: {type: RuntimeDefault}
containers:
- name: app
  image: registry.example/app:1
  securityContext:
    allowPrivilegeEscalation: false
    capabilities: {drop: [ALL]}
`

// podWorkloads wraps a pod's metadata and spec into an object of each
// kind CheckPodSecurity checks.
var podWorkloads = []struct {
	apiVersion, kind string
	wrap             func(meta, spec map[string]any) map[string]any
}{
	{"v1", "Pod", func(meta, spec map[string]any) map[string]any {
		return map[string]any{"spec": spec}
	}},
	{"v1", "PodTemplate", func(meta, spec map[string]any) map[string]any {
		return map[string]any{"template": map[string]any{"metadata": meta, "spec": spec}}
	}},
	{"v1", "ReplicationController", func(meta, spec map[string]any) map[string]any {
		return map[string]any{"spec": map[string]any{"template": map[string]any{"metadata": meta, "spec": spec}}}
	}},
	{"apps/v1", "Deployment", withSelector},
	{"apps/v1", "ReplicaSet", withSelector},
	{"apps/v1", "StatefulSet", withSelector},
	{"apps/v1", "DaemonSet", withSelector},
	{"batch/v1", "Job", func(meta, spec map[string]any) map[string]any {
		return map[string]any{"spec": map[string]any{"template": map[string]any{"metadata": meta, "spec": spec}}}
	}},
	{"batch/v1", "CronJob", func(meta, spec map[string]any) map[string]any {
		return map[string]any{"spec": map[string]any{
			"schedule": "*/5 * * * *",
			"jobTemplate": map[string]any{"spec": map[string]any{
				"template": map[string]any{"metadata": meta, "spec": spec},
			}},
		}}
	}},
}

func withSelector(meta, spec map[string]any) map[string]any {
	return map[string]any{"spec": map[string]any{
		"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
		"template": map[string]any{"metadata": meta, "spec": spec},
	}}
}

// workload is an object of kind named web, whose pod spec is podSpec
// (YAML) after change.
func workload(t *testing.T, apiVersion, kind string, wrap func(meta, spec map[string]any) map[string]any, podSpec string, change func(spec map[string]any)) *unstructured.Unstructured {
	t.Helper()
	var spec map[string]any
	if err := yaml.Unmarshal([]byte(podSpec), &spec); err != nil {
		t.Fatal(err)
	}
	if change != nil {
		change(spec)
	}
	obj := wrap(map[string]any{"labels": map[string]any{"app": "web"}}, spec)
	obj["apiVersion"] = apiVersion
	obj["kind"] = kind
	obj["metadata"] = map[string]any{"name": "web", "labels": map[string]any{"app": "web"}}
	return &unstructured.Unstructured{Object: obj}
}

// podField and containerField set a field of the pod's or of its only
// container's securityContext (or of the pod spec itself when
// securityContext is false).
func podField(key string, value any) func(map[string]any) {
	return func(spec map[string]any) {
		spec["securityContext"].(map[string]any)[key] = value
	}
}

func containerField(key string, value any) func(map[string]any) {
	return func(spec map[string]any) {
		c := spec["containers"].([]any)[0].(map[string]any)
		c["securityContext"].(map[string]any)[key] = value
	}
}

func specField(key string, value any) func(map[string]any) {
	return func(spec map[string]any) { spec[key] = value }
}

func TestPodSecurityLevels(t *testing.T) {
	cases := []struct {
		name   string
		change func(spec map[string]any)
		// the reasons each level reports, in order; nil passes.
		restricted, baseline []string
	}{
		{name: "fully restricted"},
		{
			name:       "capabilities add SYS_ADMIN",
			change:     containerField("capabilities", map[string]any{"drop": []any{"ALL"}, "add": []any{"SYS_ADMIN"}}),
			restricted: []string{"unrestricted capabilities"},
			baseline:   []string{"non-default capabilities"},
		},
		{
			name:       "capabilities add CHOWN, in baseline's default set",
			change:     containerField("capabilities", map[string]any{"drop": []any{"ALL"}, "add": []any{"CHOWN"}}),
			restricted: []string{"unrestricted capabilities"},
		},
		{
			name:       "capabilities not dropped",
			change:     containerField("capabilities", nil),
			restricted: []string{"unrestricted capabilities"},
		},
		{
			name:       "seccompProfile Unconfined",
			change:     podField("seccompProfile", map[string]any{"type": "Unconfined"}),
			restricted: []string{"seccompProfile"},
			baseline:   []string{"seccompProfile"},
		},
		{
			name:       "seccompProfile missing",
			change:     podField("seccompProfile", nil),
			restricted: []string{"seccompProfile"},
		},
		{
			name:       "runAsNonRoot missing",
			change:     podField("runAsNonRoot", nil),
			restricted: []string{"runAsNonRoot != true"},
		},
		{
			name:       "allowPrivilegeEscalation missing",
			change:     containerField("allowPrivilegeEscalation", nil),
			restricted: []string{"allowPrivilegeEscalation != false"},
		},
		{
			name:       "hostPID",
			change:     specField("hostPID", true),
			restricted: []string{"host namespaces"},
			baseline:   []string{"host namespaces"},
		},
		{
			name:       "hostNetwork",
			change:     specField("hostNetwork", true),
			restricted: []string{"host namespaces"},
			baseline:   []string{"host namespaces"},
		},
		{
			name:       "hostPath volume",
			change:     specField("volumes", []any{map[string]any{"name": "root", "hostPath": map[string]any{"path": "/"}}}),
			restricted: []string{"restricted volume types"},
			baseline:   []string{"hostPath volumes"},
		},
		{
			name:       "privileged",
			change:     containerField("privileged", true),
			restricted: []string{"privileged"},
			baseline:   []string{"privileged"},
		},
	}
	for _, w := range podWorkloads {
		for _, c := range cases {
			for _, level := range []struct {
				level bpv1.PodSecurityLevel
				want  []string
			}{{bpv1.PodSecurityRestricted, c.restricted}, {bpv1.PodSecurityBaseline, c.baseline}} {
				t.Run(w.kind+"/"+c.name+"/"+string(level.level), func(t *testing.T) {
					obj := workload(t, w.apiVersion, w.kind, w.wrap, restrictedPodSpec, c.change)
					err := CheckPodSecurity(obj, level.level)
					if level.want == nil {
						if err != nil {
							t.Fatalf("want no error, got %v", err)
						}
						return
					}
					var pse *PodSecurityError
					if !errors.As(err, &pse) {
						t.Fatalf("want a *PodSecurityError, got %v", err)
					}
					var got []string
					for _, v := range pse.Violations {
						got = append(got, v.Reason)
					}
					if d := cmp.Diff(level.want, got); d != "" {
						t.Errorf("reasons (-want +got):\n%s\nerror: %v", d, err)
					}
					prefix := w.kind + ` web violates PodSecurity "` + string(level.level) + `:latest": `
					if !strings.HasPrefix(err.Error(), prefix) {
						t.Errorf("error %q does not start with %q", err, prefix)
					}
				})
			}
		}
	}
}

// The message names the object, the level and every failed check with the
// library's reason and detail, in the library's order: here the example
// blueprint's NGINX Deployment as it was before its override dropped
// capabilities and set a seccomp profile.
func TestPodSecurityMessage(t *testing.T) {
	obj := workload(t, "apps/v1", "Deployment", withSelector, `
containers:
- name: nginx
  image: nginxinc/nginx-unprivileged:1.27-alpine
  securityContext: {runAsNonRoot: true, runAsUser: 101, allowPrivilegeEscalation: false}
- name: sidecar
  image: registry.example/sidecar:1
  securityContext: {privileged: true}
`, nil)
	obj.SetName("shop-nginx")
	want := `Deployment shop-nginx violates PodSecurity "restricted:latest": ` +
		`privileged (container "sidecar" must not set securityContext.privileged=true), ` +
		`allowPrivilegeEscalation != false (container "sidecar" must set securityContext.allowPrivilegeEscalation=false), ` +
		`unrestricted capabilities (containers "nginx", "sidecar" must set securityContext.capabilities.drop=["ALL"]), ` +
		`runAsNonRoot != true (pod or container "sidecar" must set securityContext.runAsNonRoot=true), ` +
		`seccompProfile (pod or containers "nginx", "sidecar" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`
	for range 3 { // the same every time
		err := CheckPodSecurity(obj, bpv1.PodSecurityRestricted)
		if err == nil {
			t.Fatal("want an error")
		}
		if d := cmp.Diff(want, err.Error()); d != "" {
			t.Fatalf("message (-want +got):\n%s", d)
		}
	}
}

func TestPodSecurityObjects(t *testing.T) {
	cases := []struct {
		name  string
		obj   string
		level bpv1.PodSecurityLevel
		// want is a substring of the error; "" passes. violation says
		// whether the error is a *PodSecurityError.
		want      string
		violation bool
	}{
		{
			name: "CronJob: the job template's pod is checked",
			obj: `
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          hostNetwork: true
          containers: [{name: job, image: registry.example/job:1}]
`,
			level:     bpv1.PodSecurityBaseline,
			want:      `CronJob nightly violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true)`,
			violation: true,
		},
		{
			name: "ConfigMap is no workload",
			obj: `
apiVersion: v1
kind: ConfigMap
metadata: {name: web}
data: {containers: "not a list", hostPID: "true"}
`,
		},
		{
			name: "a Deployment of another group is no workload",
			obj: `
apiVersion: example.com/v1
kind: Deployment
metadata: {name: web}
spec: {template: {spec: {hostPID: true, containers: "x"}}}
`,
		},
		{
			name: "malformed pod spec: containers is a string",
			obj: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers: nginx
`,
			want: `Deployment web: cannot check its pod template against PodSecurity "restricted": not a valid Deployment.apps: `,
		},
		{
			name: "malformed pod: hostPID is a string",
			obj: `
apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {hostPID: "yes", containers: []}
`,
			want: `Pod web: cannot check its pod template`,
		},
		{
			name: "ReplicationController without a template has no pod to check",
			obj: `
apiVersion: v1
kind: ReplicationController
metadata: {name: web}
spec: {replicas: 1}
`,
		},
		{
			name: "an older version of a kind is checked too",
			obj: `
apiVersion: apps/v1beta2
kind: DaemonSet
metadata: {name: agent}
spec:
  template:
    spec:
      containers: [{name: agent, image: registry.example/agent:1, securityContext: {privileged: true}}]
`,
			level:     bpv1.PodSecurityBaseline,
			want:      `DaemonSet agent violates PodSecurity "baseline:latest": privileged (container "agent" must not set securityContext.privileged=true)`,
			violation: true,
		},
		{
			name: "no level is restricted, as a blueprint read from a file has no defaults",
			obj: `
apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: app, image: registry.example/app:1}]}
`,
			level:     "",
			want:      `Pod web violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false`,
			violation: true,
		},
		{
			name: "privileged is no level blueprints offer",
			obj: `
apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: app, image: registry.example/app:1}]}
`,
			level: "privileged",
			want:  `spec.podSecurity "privileged" is not a level blueprints offer; use "restricted" or "baseline"`,
		},
		{
			name: "an unknown level is refused even for a kind without pods",
			obj: `
apiVersion: v1
kind: ConfigMap
metadata: {name: web}
`,
			level: "Restricted",
			want:  `spec.podSecurity "Restricted" is not a level blueprints offer`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obj := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(c.obj), &obj.Object); err != nil {
				t.Fatal(err)
			}
			err := CheckPodSecurity(obj, c.level)
			if c.want == "" {
				if err != nil {
					t.Fatalf("want no error, got %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want an error containing %q, got %v", c.want, err)
			}
			var pse *PodSecurityError
			if got := errors.As(err, &pse); got != c.violation {
				t.Errorf("error is a *PodSecurityError: %v, want %v", got, c.violation)
			}
		})
	}
}
