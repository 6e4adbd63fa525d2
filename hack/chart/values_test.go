package chart

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/lint/support"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// expect is one field of one rendered object: kind/name, a dotted path
// (numbers index lists) and the value as YAML; absent means the field
// must not be set.
type expect struct {
	object, path, value string
}

const absent = "<absent>"

// The controller's container and pod, in the release "strata".
const (
	deploy    = "Deployment/strata"
	pod       = "spec.template.spec"
	container = "spec.template.spec.containers.0"
)

// defaultArgs are the controller's arguments with values.yaml as it is.
const defaultArgs = `[controller, --leader-elect, --metrics-bind-address=:8443, --health-probe-bind-address=:8081, --target-qps=20, --zap-log-level=info]`

// TestChartValues checks that each value reaches the object it configures,
// as Helm renders the chart.
func TestChartValues(t *testing.T) {
	cases := []struct {
		name   string
		values string
		// kinds are the kinds rendered, sorted; nil skips the check.
		kinds []string
		want  []expect
	}{{
		name:  "defaults",
		kinds: []string{"ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRoleBinding", "ClusterRoleBinding", "Deployment", "Role", "RoleBinding", "Service", "ServiceAccount"},
		want: []expect{
			{deploy, container + ".args", defaultArgs},
			{deploy, container + ".image", "ghcr.io/strata-dev/strata:latest"},
			{deploy, container + ".imagePullPolicy", "IfNotPresent"},
			{deploy, "spec.replicas", "1"},
			{deploy, pod + ".serviceAccountName", "strata"},
			{deploy, pod + ".imagePullSecrets", absent},
			{deploy, pod + ".priorityClassName", absent},
			{deploy, pod + ".nodeSelector", absent},
			{deploy, "spec.template.metadata.annotations", absent},
			{deploy, "spec.template.metadata.labels", "{app.kubernetes.io/name: strata, app.kubernetes.io/instance: strata, app.kubernetes.io/component: controller}"},
			{deploy, container + ".resources", "{requests: {cpu: 100m, memory: 128Mi}, limits: {cpu: '1', memory: 512Mi}}"},
			{"ServiceAccount/strata", "metadata.annotations", absent},
			{"ClusterRoleBinding/strata", "subjects", "[{kind: ServiceAccount, name: strata, namespace: strata-system}]"},
			{"RoleBinding/strata-leader-election", "subjects", "[{kind: ServiceAccount, name: strata, namespace: strata-system}]"},
			{"Service/strata-metrics", "spec.ports.0.port", "8443"},
			{deploy, container + ".ports.0", "{name: metrics, containerPort: 8443, protocol: TCP}"},
			{deploy, container + ".volumeMounts", absent},
			{deploy, pod + ".volumes", absent},
			{"ClusterRole/strata-metrics-auth", "rules", "[{apiGroups: [authentication.k8s.io], resources: [tokenreviews], verbs: [create]}, {apiGroups: [authorization.k8s.io], resources: [subjectaccessreviews], verbs: [create]}]"},
			{"ClusterRoleBinding/strata-metrics-auth", "subjects", "[{kind: ServiceAccount, name: strata, namespace: strata-system}]"},
			{"ClusterRoleBinding/strata-metrics-auth", "roleRef.name", "strata-metrics-auth"},
			{"ClusterRole/strata-metrics-reader", "rules", "[{nonResourceURLs: [/metrics], verbs: [get]}]"},
		},
	}, {
		name:   "admission webhook, self-signed",
		values: "webhook: {enabled: true}",
		kinds:  []string{"ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRoleBinding", "ClusterRoleBinding", "ClusterRoleBinding", "Deployment", "Role", "RoleBinding", "Service", "Service", "ServiceAccount", "ValidatingWebhookConfiguration"},
		want: []expect{
			{deploy, container + ".args", `[controller, --leader-elect, --metrics-bind-address=:8443, --health-probe-bind-address=:8081, --target-qps=20, --zap-log-level=info, --webhook, --webhook-service=strata-system/strata-webhook, --webhook-configuration=strata, --webhook-budget=100ms]`},
			{deploy, container + ".ports.2", "{name: webhook, containerPort: 9443, protocol: TCP}"},
			// The self-signed certificate is written to /tmp: the root
			// filesystem is read-only.
			{deploy, container + ".volumeMounts", "[{name: tmp, mountPath: /tmp}]"},
			{deploy, pod + ".volumes", "[{name: tmp, emptyDir: {medium: Memory, sizeLimit: 1Mi}}]"},
			{"Service/strata-webhook", "spec.ports", "[{name: webhook, port: 443, targetPort: webhook, protocol: TCP}]"},
			{"ValidatingWebhookConfiguration/strata", "metadata.annotations", absent},
			{"ValidatingWebhookConfiguration/strata", "webhooks.0.clientConfig", "{service: {name: strata-webhook, namespace: strata-system, path: /validate-policies, port: 443}}"},
			{"ValidatingWebhookConfiguration/strata", "webhooks.0.failurePolicy", "Ignore"},
			{"ValidatingWebhookConfiguration/strata", "webhooks.0.rules", absent},
			{"ClusterRole/strata-webhook-configuration", "rules", "[{apiGroups: [admissionregistration.k8s.io], resources: [validatingwebhookconfigurations], resourceNames: [strata], verbs: [get, update]}]"},
			{"ClusterRoleBinding/strata-webhook-configuration", "subjects", "[{kind: ServiceAccount, name: strata, namespace: strata-system}]"},
		},
	}, {
		name:   "admission webhook with cert-manager and a deny list",
		values: "webhook: {enabled: true, deny: [invalid, conflicted], certSecret: strata-webhook-cert, caInjectFrom: strata-system/strata-webhook-cert}",
		want: []expect{
			{deploy, container + ".args", `[controller, --leader-elect, --metrics-bind-address=:8443, --health-probe-bind-address=:8081, --target-qps=20, --zap-log-level=info, --webhook, --webhook-service=strata-system/strata-webhook, --webhook-configuration=strata, --webhook-budget=100ms, '--webhook-deny=invalid,conflicted', --webhook-cert-dir=/etc/strata/webhook-certs]`},
			{deploy, container + ".volumeMounts", "[{name: webhook-certs, mountPath: /etc/strata/webhook-certs, readOnly: true}]"},
			{deploy, pod + ".volumes", "[{name: webhook-certs, secret: {secretName: strata-webhook-cert}}]"},
			{"ValidatingWebhookConfiguration/strata", "metadata.annotations", "{cert-manager.io/inject-ca-from: strata-system/strata-webhook-cert}"},
		},
	}, {
		name:   "image tag and pull policy",
		values: "image: {repository: registry.example/strata, tag: v0.1.0, pullPolicy: Always}",
		want: []expect{
			{deploy, container + ".image", "registry.example/strata:v0.1.0"},
			{deploy, container + ".imagePullPolicy", "Always"},
		},
	}, {
		name:   "image digest wins over the tag",
		values: "image: {tag: v0.1.0, digest: sha256:" + strings.Repeat("ab", 32) + "}",
		want:   []expect{{deploy, container + ".image", "ghcr.io/strata-dev/strata@sha256:" + strings.Repeat("ab", 32)}},
	}, {
		name:   "empty image tag is the chart's appVersion",
		values: "image: {tag: ''}",
		want:   []expect{{deploy, container + ".image", "ghcr.io/strata-dev/strata:latest"}},
	}, {
		name:   "imagePullSecrets",
		values: "imagePullSecrets: [{name: regcred}]",
		want:   []expect{{deploy, pod + ".imagePullSecrets", "[{name: regcred}]"}},
	}, {
		name:   "serviceAccount name and annotations",
		values: "serviceAccount: {name: strata-sa, annotations: {iam.gke.io/gcp-service-account: strata@example.iam.gserviceaccount.com}}",
		want: []expect{
			{"ServiceAccount/strata-sa", "metadata.annotations", "{iam.gke.io/gcp-service-account: strata@example.iam.gserviceaccount.com}"},
			{deploy, pod + ".serviceAccountName", "strata-sa"},
			{"ClusterRoleBinding/strata", "subjects.0.name", "strata-sa"},
			{"RoleBinding/strata-leader-election", "subjects.0.name", "strata-sa"},
		},
	}, {
		name:   "serviceAccount not created: an existing one is bound",
		values: "serviceAccount: {create: false, name: existing}",
		kinds:  []string{"ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRoleBinding", "ClusterRoleBinding", "Deployment", "Role", "RoleBinding", "Service"},
		want: []expect{
			{deploy, pod + ".serviceAccountName", "existing"},
			{"ClusterRoleBinding/strata", "subjects.0.name", "existing"},
			{"ClusterRoleBinding/strata-metrics-auth", "subjects.0.name", "existing"},
			{"RoleBinding/strata-leader-election", "subjects.0.name", "existing"},
		},
	}, {
		name:   "podAnnotations and podLabels go on the pod, not the selector",
		values: "{podAnnotations: {example.com/team: platform}, podLabels: {team: platform}}",
		want: []expect{
			{deploy, "spec.template.metadata.annotations", "{example.com/team: platform}"},
			{deploy, "spec.template.metadata.labels.team", "platform"},
			{deploy, "spec.selector.matchLabels.team", absent},
		},
	}, {
		name:   "resources merge into the defaults (Helm merges maps)",
		values: "resources: {requests: {cpu: 50m}}",
		want:   []expect{{deploy, container + ".resources", "{requests: {cpu: 50m, memory: 128Mi}, limits: {cpu: '1', memory: 512Mi}}"}},
	}, {
		name:   "resources: null removes them",
		values: "resources: {requests: null, limits: {memory: 1Gi, cpu: null}}",
		want:   []expect{{deploy, container + ".resources", "{limits: {memory: 1Gi}}"}},
	}, {
		name: "scheduling",
		values: `
priorityClassName: system-cluster-critical
nodeSelector: {kubernetes.io/os: linux}
tolerations: [{key: dedicated, operator: Equal, value: infra, effect: NoSchedule}]
affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]}]}}}`,
		want: []expect{
			{deploy, pod + ".priorityClassName", "system-cluster-critical"},
			{deploy, pod + ".nodeSelector", "{kubernetes.io/os: linux}"},
			{deploy, pod + ".tolerations", "[{key: dedicated, operator: Equal, value: infra, effect: NoSchedule}]"},
			{deploy, pod + ".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.0.matchExpressions.0.values", "[amd64]"},
		},
	}, {
		name:   "logLevel debug",
		values: "logLevel: debug",
		want:   []expect{{deploy, container + ".args.5", "--zap-log-level=debug"}},
	}, {
		name:   "logLevel as a verbosity",
		values: "logLevel: 3",
		want:   []expect{{deploy, container + ".args.5", "--zap-log-level=3"}},
	}, {
		name:   "extraArgs come last",
		values: "extraArgs: [--target-burst=100, --zap-encoder=console]",
		want: []expect{{deploy, container + ".args",
			strings.TrimSuffix(defaultArgs, "]") + ", --target-burst=100, --zap-encoder=console]"}},
	}, {
		name:   "metrics port",
		values: "metrics: {port: 9090}",
		want: []expect{
			{deploy, container + ".args.2", "--metrics-bind-address=:9090"},
			{deploy, container + ".ports.0", "{name: metrics, containerPort: 9090, protocol: TCP}"},
			{"Service/strata-metrics", "spec.ports.0", "{name: metrics, port: 9090, targetPort: metrics, protocol: TCP}"},
		},
	}, {
		name:   "metrics over plain HTTP: no reviews, no reader role, port 8080",
		values: "metrics: {secure: false}",
		kinds:  []string{"ClusterRole", "ClusterRole", "ClusterRole", "ClusterRoleBinding", "Deployment", "Role", "RoleBinding", "Service", "ServiceAccount"},
		want: []expect{
			{deploy, container + ".args", "[controller, --leader-elect, --metrics-secure=false, --metrics-bind-address=:8080, --health-probe-bind-address=:8081, --target-qps=20, --zap-log-level=info]"},
			{deploy, container + ".ports.0.containerPort", "8080"},
			{"Service/strata-metrics", "spec.ports.0.port", "8080"},
		},
	}, {
		name:   "metrics over plain HTTP on a port of one's own",
		values: "metrics: {secure: false, port: 9090}",
		want:   []expect{{deploy, container + ".args.3", "--metrics-bind-address=:9090"}},
	}, {
		name:   "metrics certificate from a Secret",
		values: "metrics: {certSecret: strata-metrics-cert}",
		want: []expect{
			{deploy, container + ".args.3", "--metrics-cert-dir=/etc/strata/metrics-certs"},
			{deploy, container + ".volumeMounts", "[{name: metrics-certs, mountPath: /etc/strata/metrics-certs, readOnly: true}]"},
			{deploy, pod + ".volumes", "[{name: metrics-certs, secret: {secretName: strata-metrics-cert}}]"},
		},
	}, {
		name:   "metrics certificate Secret unused over plain HTTP",
		values: "metrics: {secure: false, certSecret: strata-metrics-cert}",
		want: []expect{
			{deploy, container + ".volumeMounts", absent},
			{deploy, pod + ".volumes", absent},
		},
	}, {
		name:   "podDisruptionBudget: maxUnavailable by default",
		values: "{replicas: 2, podDisruptionBudget: {enabled: true}}",
		kinds:  []string{"ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRoleBinding", "ClusterRoleBinding", "Deployment", "PodDisruptionBudget", "Role", "RoleBinding", "Service", "ServiceAccount"},
		want: []expect{
			{"PodDisruptionBudget/strata", "spec", "{selector: {matchLabels: {app.kubernetes.io/name: strata, app.kubernetes.io/instance: strata, app.kubernetes.io/component: controller}}, maxUnavailable: 1}"},
			{deploy, "spec.replicas", "2"},
		},
	}, {
		name:   "podDisruptionBudget: minAvailable replaces maxUnavailable",
		values: "{replicas: 3, podDisruptionBudget: {enabled: true, minAvailable: 2}}",
		want: []expect{
			{"PodDisruptionBudget/strata", "spec.minAvailable", "2"},
			{"PodDisruptionBudget/strata", "spec.maxUnavailable", absent},
		},
	}, {
		name:   "podDisruptionBudget: percentages",
		values: "{replicas: 2, podDisruptionBudget: {enabled: true, maxUnavailable: 50%}}",
		want:   []expect{{"PodDisruptionBudget/strata", "spec.maxUnavailable", "50%"}},
	}, {
		name:   "serviceMonitor",
		values: "serviceMonitor: {enabled: true, labels: {release: kube-prometheus-stack}, interval: 30s, scrapeTimeout: 10s}",
		kinds:  []string{"ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRoleBinding", "ClusterRoleBinding", "Deployment", "Role", "RoleBinding", "Service", "ServiceAccount", "ServiceMonitor"},
		want: []expect{
			{"ServiceMonitor/strata", "apiVersion", "monitoring.coreos.com/v1"},
			{"ServiceMonitor/strata", "metadata.namespace", "strata-system"},
			{"ServiceMonitor/strata", "metadata.labels.release", "kube-prometheus-stack"},
			{"ServiceMonitor/strata", "spec", "{selector: {matchLabels: {app.kubernetes.io/name: strata, app.kubernetes.io/instance: strata, app.kubernetes.io/component: controller}}, endpoints: [{port: metrics, path: /metrics, scheme: https, bearerTokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token, tlsConfig: {insecureSkipVerify: true}, interval: 30s, scrapeTimeout: 10s}]}"},
		},
	}, {
		name:   "serviceMonitor verifying a CA",
		values: "serviceMonitor: {enabled: true, tlsConfig: {serverName: strata-metrics.strata-system.svc, ca: {secret: {name: strata-metrics-cert, key: ca.crt}}}}",
		want: []expect{
			{"ServiceMonitor/strata", "spec.endpoints.0.tlsConfig", "{serverName: strata-metrics.strata-system.svc, ca: {secret: {name: strata-metrics-cert, key: ca.crt}}}"},
		},
	}, {
		name:   "serviceMonitor over plain HTTP",
		values: "{metrics: {secure: false}, serviceMonitor: {enabled: true}}",
		want: []expect{
			{"ServiceMonitor/strata", "spec.endpoints", "[{port: metrics, path: /metrics, scheme: http}]"},
		},
	}, {
		name: "controller flags and policy kinds",
		values: `
controllerName: example.com/strata
leaderElection: false
effectivePolicies: false
targetQPS: 2.5
policyKinds:
- {group: policies.controller.io, resource: colorpolicies, managed: true}
- {group: example.com, resource: retrypolicies}`,
		kinds: []string{"ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRoleBinding", "ClusterRoleBinding", "Deployment", "Service", "ServiceAccount"},
		want: []expect{
			{deploy, container + ".args", "[controller, --metrics-bind-address=:8443, --health-probe-bind-address=:8081, --controller-name=example.com/strata, --effective-policies=false, --target-qps=2.5, --zap-log-level=info]"},
			{"ClusterRole/strata-colorpolicies.policies.controller.io", "rules", "[{apiGroups: [policies.controller.io], resources: [colorpolicies], verbs: [get, list, watch]}, {apiGroups: [policies.controller.io], resources: [colorpolicies/status], verbs: [patch]}]"},
			{"ClusterRole/strata-retrypolicies.example.com", "rules", "[{apiGroups: [example.com], resources: [retrypolicies], verbs: [get, list, watch]}]"},
			{"ClusterRole/strata-retrypolicies.example.com", "metadata.labels.strata\\.dev/aggregate-to-controller", "'true'"},
		},
	}, {
		name: "blueprints",
		values: `
blueprints:
  controllerName: example.com/blueprints
  renderedResources:
  - {group: apps, resource: deployments}
  - {group: "", resource: services}`,
		want: []expect{
			{deploy, container + ".args.5", "--blueprint-controller-name=example.com/blueprints"},
			{"ClusterRole/strata-blueprint-objects", "rules", "[{apiGroups: [apps], resources: [deployments], verbs: [get, list, watch, create, patch, delete]}, {apiGroups: [''], resources: [services], verbs: [get, list, watch, create, patch, delete]}]"},
		},
	}, {
		name:   "gatewayAPIViewer: Gateway API reads aggregated into view, edit and admin",
		values: "gatewayAPIViewer: {enabled: true}",
		kinds:  []string{"ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRoleBinding", "ClusterRoleBinding", "Deployment", "Role", "RoleBinding", "Service", "ServiceAccount"},
		want: []expect{
			{"ClusterRole/strata-gateway-api-viewer", "rules", "[{apiGroups: [gateway.networking.k8s.io], resources: [gatewayclasses, gateways, listenersets, httproutes, grpcroutes, tcproutes, tlsroutes, udproutes, referencegrants, backendtlspolicies], verbs: [get, list, watch]}]"},
			{"ClusterRole/strata-gateway-api-viewer", "metadata.labels.rbac\\.authorization\\.k8s\\.io/aggregate-to-view", "'true'"},
			{"ClusterRole/strata-gateway-api-viewer", "metadata.labels.rbac\\.authorization\\.k8s\\.io/aggregate-to-edit", "'true'"},
			{"ClusterRole/strata-gateway-api-viewer", "metadata.labels.rbac\\.authorization\\.k8s\\.io/aggregate-to-admin", "'true'"},
			{"ClusterRole/strata-gateway-api-viewer", "aggregationRule", absent},
		},
	}, {
		name:   "blueprints off",
		values: "blueprints: {enabled: false}",
		want:   []expect{{deploy, container + ".args.5", "--blueprints=false"}},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRender(t, tc.values)
			if tc.kinds != nil {
				var kinds []string
				for _, o := range r.objs {
					kinds = append(kinds, o.GetKind())
				}
				slices.Sort(kinds)
				if d := cmp.Diff(tc.kinds, kinds); d != "" {
					t.Errorf("kinds (-want +got):\n%s", d)
				}
			}
			for _, e := range tc.want {
				checkField(t, r, e)
			}
		})
	}
}

// checkField compares one field of a rendered object with e.
func checkField(t *testing.T, r *release, e expect) {
	t.Helper()
	kind, name, _ := strings.Cut(e.object, "/")
	o := r.find(kind, name)
	if o == nil {
		t.Errorf("%s: not rendered", e.object)
		return
	}
	got, found := field(o, e.path)
	if e.value == absent {
		if found {
			t.Errorf("%s %s = %v, want it unset", e.object, e.path, got)
		}
		return
	}
	if !found {
		t.Errorf("%s %s is not set, want %s", e.object, e.path, e.value)
		return
	}
	var want any
	if err := yaml.Unmarshal([]byte(e.value), &want); err != nil {
		t.Fatalf("want %q: %v", e.value, err)
	}
	// Compare as YAML documents, so that 1 and 1.0, or a map's key order,
	// do not matter.
	if d := cmp.Diff(normalize(t, want), normalize(t, got)); d != "" {
		t.Errorf("%s %s (-want +got):\n%s", e.object, e.path, d)
	}
}

// field walks a dotted path ("\." escapes a dot in a key; a number
// indexes a list).
func field(o *unstructured.Unstructured, path string) (any, bool) {
	var cur any = o.Object
	for _, seg := range splitPath(path) {
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[seg]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			cur = v[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func splitPath(path string) []string {
	var segs []string
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		switch {
		case path[i] == '\\' && i+1 < len(path):
			i++
			b.WriteByte(path[i])
		case path[i] == '.':
			segs = append(segs, b.String())
			b.Reset()
		default:
			b.WriteByte(path[i])
		}
	}
	return append(segs, b.String())
}

// normalize round-trips v through YAML, so numbers decode alike.
func normalize(t *testing.T, v any) any {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := yaml.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestChartRefuses: values the schema refuses (a misspelt key at any level
// people type, a value of the wrong type), and combinations the templates
// refuse with fail or required, each with a message naming the value.
func TestChartRefuses(t *testing.T) {
	cases := []struct {
		name, values string
		// set, when not empty, replaces values: --set's syntax.
		set string
		// want are substrings of the error.
		want []string
	}{
		{"misspelt top-level key", "replica: 2", "", []string{"values don't meet the specifications of the schema", "'replica'"}},
		{"misspelt image key", "image: {tagg: v0.1.0}", "", []string{"/image", "'tagg'"}},
		{"misspelt serviceAccount key", "serviceAccount: {craete: false}", "", []string{"/serviceAccount", "'craete'"}},
		{"misspelt policy kind key", "policyKinds: [{group: example.com, resource: retrypolicies, manged: true}]", "", []string{"/policyKinds/0", "'manged'"}},
		{"misspelt podDisruptionBudget key", "podDisruptionBudget: {enable: true}", "", []string{"/podDisruptionBudget", "'enable'"}},
		{"misspelt serviceMonitor key", "serviceMonitor: {enabeld: true}", "", []string{"/serviceMonitor", "'enabeld'"}},
		{"replicas: abc", "replicas: abc", "", []string{"/replicas", "got string, want integer"}},
		{"replicas: 1.5", "replicas: 1.5", "", []string{"/replicas", "want integer"}},
		{"replicas below zero", "replicas: -1", "", []string{"/replicas", "minimum"}},
		{"leaderElection as a string", "leaderElection: 'yes'", "", []string{"/leaderElection", "want boolean"}},
		{"unknown logLevel", "logLevel: verbose", "", []string{"/logLevel"}},
		{"logLevel 0", "logLevel: 0", "", []string{"/logLevel"}},
		{"pullPolicy", "image: {pullPolicy: Sometimes}", "", []string{"/image/pullPolicy"}},
		{"digest without algorithm", "image: {digest: abc}", "", []string{"/image/digest"}},
		{"empty image repository", "image: {repository: ''}", "", []string{"/image/repository"}},
		{"extraArgs not a list", "extraArgs: --zap-devel", "", []string{"/extraArgs", "want array"}},
		{"policy kind without resource", "policyKinds: [{group: example.com}]", "", []string{"/policyKinds/0", "resource"}},
		{"serviceMonitor interval", "serviceMonitor: {enabled: true, interval: 30 seconds}", "", []string{"/serviceMonitor/interval"}},
		{"misspelt metrics key", "metrics: {secrue: false}", "", []string{"/metrics", "'secrue'"}},
		{"metrics port as a string", "metrics: {port: https}", "", []string{"/metrics/port"}},
		{"misspelt webhook key", "webhook: {enable: true}", "", []string{"/webhook", "'enable'"}},
		{"unknown webhook deny class", "webhook: {enabled: true, deny: [overriden]}", "", []string{"/webhook/deny/0"}},
		{"webhook budget not a duration", "webhook: {budget: fast}", "", []string{"/webhook/budget"}},
		{"webhook timeout over 30 s", "webhook: {timeoutSeconds: 60}", "", []string{"/webhook/timeoutSeconds"}},
		{"metrics secure as a string", "metrics: {secure: 'no'}", "", []string{"/metrics/secure", "want boolean"}},
		{"metrics certSecret not a name", "metrics: {certSecret: My_Secret}", "", []string{"/metrics/certSecret"}},
		{"podLabels values are strings", "podLabels: {tier: {a: b}}", "", []string{"/podLabels/tier", "want string"}},

		{"--set replicas=abc", "", "replicas=abc", []string{"/replicas", "got string, want integer"}},

		{"replicas > 1 without leader election (fail)", "{replicas: 2, leaderElection: false}", "",
			[]string{"replicas: 2 needs leaderElection: true"}},
		{"--set replicas > 1 without leader election (fail)", "", "replicas=3,leaderElection=false",
			[]string{"replicas: 3 needs leaderElection: true"}},
		{"no ServiceAccount and no name (required)", "serviceAccount: {create: false}", "",
			[]string{"serviceAccount.name is required when serviceAccount.create is false"}},
		{"podDisruptionBudget blocking every drain (fail)", "podDisruptionBudget: {enabled: true, minAvailable: 1}", "",
			[]string{"podDisruptionBudget.minAvailable: 1 with replicas: 1 would block every voluntary eviction"}},
		{"--set podDisruptionBudget blocking every drain (fail)", "", "replicas=2,podDisruptionBudget.enabled=true,podDisruptionBudget.minAvailable=2",
			[]string{"podDisruptionBudget.minAvailable: 2 with replicas: 2 would block every voluntary eviction"}},
		{"podLabels overriding the selector (fail)", "podLabels: {app.kubernetes.io/instance: other}", "",
			[]string{"podLabels: app.kubernetes.io/instance is a label of the Deployment's selector"}},
		{"podDisruptionBudget with neither bound (fail)", "podDisruptionBudget: {enabled: true, maxUnavailable: null}", "",
			[]string{"podDisruptionBudget: set minAvailable or maxUnavailable"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.set != "" {
				_, err = renderSet(t, tc.set)
			} else {
				_, err = render(t, "strata", "strata-system", tc.values)
			}
			if err == nil {
				t.Fatalf("values %q (--set %q) rendered, want an error", tc.values, tc.set)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestChartNotes: NOTES.txt renders, names what was installed and warns
// about what needs doing.
func TestChartNotes(t *testing.T) {
	cases := []struct {
		name, values string
		want, not    []string
	}{{
		name: "defaults",
		want: []string{"deployment/strata", `The image tag is "latest"`, "No policyKinds are set", "blueprints.renderedResources is empty",
			"https://strata-metrics.strata-system.svc:8443/metrics.", "bound to the ClusterRole strata-metrics-reader", "--clusterrole=strata-metrics-reader", "self-signed"},
		not: []string{"plain HTTP"},
	}, {
		name:   "plain HTTP metrics",
		values: "metrics: {secure: false}",
		want:   []string{"http://strata-metrics.strata-system.svc:8080/metrics (plain HTTP)"},
		not:    []string{"metrics-reader", "https://"},
	}, {
		name:   "metrics certificate of one's own",
		values: "metrics: {certSecret: strata-metrics-cert}",
		not:    []string{"self-signed"},
	}, {
		name: "pinned, with policy kinds and a ServiceMonitor",
		values: `
image: {tag: v0.1.0}
policyKinds: [{group: example.com, resource: retrypolicies}]
blueprints: {enabled: false}
serviceMonitor: {enabled: true}`,
		want: []string{"image ghcr.io/strata-dev/strata:v0.1.0", "/metrics, scraped by the ServiceMonitor strata."},
		not:  []string{`"latest"`, "No policyKinds", "renderedResources"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			notes := mustRender(t, tc.values).notes
			for _, w := range tc.want {
				if !strings.Contains(notes, w) {
					t.Errorf("NOTES.txt does not say %q:\n%s", w, notes)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(notes, w) {
					t.Errorf("NOTES.txt says %q:\n%s", w, notes)
				}
			}
		})
	}
}

// TestChartLint is `helm lint --strict` on the chart, with the default
// values and with every optional template on: any warning fails it. (An
// icon missing from Chart.yaml is information only.)
func TestChartLint(t *testing.T) {
	for name, values := range map[string]map[string]any{
		"defaults": nil,
		"optional templates on": {
			"replicas":            2,
			"podDisruptionBudget": map[string]any{"enabled": true},
			"serviceMonitor":      map[string]any{"enabled": true},
		},
	} {
		t.Run(name, func(t *testing.T) {
			lint := action.NewLint()
			lint.Strict = true
			lint.Namespace = "strata-system"
			res := lint.Run([]string{chartDir}, values)
			for _, err := range res.Errors {
				t.Errorf("helm lint: %v", err)
			}
			for _, m := range res.Messages {
				if m.Severity > support.InfoSev {
					t.Errorf("helm lint: %s", m)
				} else {
					t.Logf("helm lint: %s", m)
				}
			}
		})
	}
}
