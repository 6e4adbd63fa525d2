package blueprints_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/blueprint"
	"github.com/strata-dev/strata/pkg/blueprint/render"
	"github.com/strata-dev/strata/pkg/controller/blueprints"
)

// escapeBlueprint is examples/blueprints/blueprint.yaml cut down to what a
// tenant's values reach: labels from .Values.tags, replicas, resources and
// the container's securityContext (locked by the override, as in the
// example), the Service's annotations and, added here, a Service name a
// value can choose. Its route template labels a ConfigMap with the tags.
const escapeBlueprint = `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: escape
spec:
  values:
    default:
      image: nginxinc/nginx-unprivileged:1.27-alpine
      portOffset: 8000
      replicas: 1
      logLevel: warn
      serviceName: ""
      service:
        type: ClusterIP
        annotations: {}
      tags:
        managed-by: strata
      resources:
        requests: {cpu: 50m, memory: 32Mi}
    override:
      securityContext:
        runAsNonRoot: true
        runAsUser: 101
        allowPrivilegeEscalation: false
        capabilities:
          drop: [ALL]
        seccompProfile:
          type: RuntimeDefault
  gatewayTemplate:
    resourceTemplates:
    - name: nginx
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .Gateway.metadata.name }}-nginx
          labels:
            {{- range $k, $v := .Values.tags }}
            {{ $k }}: {{ $v | quote }}
            {{- end }}
        data:
          nginx.conf: |
            error_log /dev/stderr {{ .Values.logLevel }};
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {{ .Gateway.metadata.name }}-nginx
          labels:
            {{- range $k, $v := .Values.tags }}
            {{ $k }}: {{ $v | quote }}
            {{- end }}
        spec:
          replicas: {{ .Values.replicas }}
          selector:
            matchLabels:
              app.kubernetes.io/instance: {{ .Gateway.metadata.name }}-nginx
          template:
            metadata:
              labels:
                app.kubernetes.io/instance: {{ .Gateway.metadata.name }}-nginx
            spec:
              containers:
              - name: nginx
                image: {{ .Values.image }}
                ports:
                {{- range .Gateway.spec.listeners }}
                - name: {{ .name | trunc 15 }}
                  containerPort: {{ add .port $.Values.portOffset }}
                {{- end }}
                resources: {{ .Values.resources | toJson }}
                securityContext: {{ .Values.securityContext | toJson }}
    - name: service
      template: |
        apiVersion: v1
        kind: Service
        metadata:
          name: {{ .Values.serviceName | default (print .Gateway.metadata.name "-nginx") }}
          labels:
            {{- range $k, $v := .Values.tags }}
            {{ $k }}: {{ $v | quote }}
            {{- end }}
          annotations: {{ .Values.service.annotations | toJson }}
        spec:
          type: {{ .Values.service.type }}
          selector:
            app.kubernetes.io/instance: {{ .Gateway.metadata.name }}-nginx
          ports:
          {{- range .Gateway.spec.listeners }}
          - name: {{ .name }}
            port: {{ .port }}
            targetPort: {{ add .port $.Values.portOffset }}
          {{- end }}
  httpRouteTemplate:
    resourceTemplates:
    - name: routing
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .HTTPRoute.metadata.name }}-via-{{ .Gateway.metadata.name }}
          labels:
            {{- range $k, $v := .Values.tags }}
            {{ $k }}: {{ $v | quote }}
            {{- end }}
        data:
          gateway: {{ .Gateway.metadata.namespace }}/{{ .Gateway.metadata.name }}
`

// TestEscape: what a tenant's GatewayConfig on its Gateway can try
// against a blueprint like the example's, to get more than the blueprint
// gives: another object through a value (a second document, a List), a
// finalizer through a label key, a privileged container next to the
// locked securityContext, a name the API server would choke on. Each is
// refused whole: no object anywhere is new and none Strata made before
// changed (resourceVersions taken before the config was applied), the
// Gateway says it is not accepted (or not programmed) naming the config
// and the value path, and so does the config's ancestor entry for the
// Gateway, while the provider's config there stays Enforced, untouched.
// The same holds for a config on an HTTPRoute whose render it breaks.
func TestEscape(t *testing.T) {
	t.Parallel()
	r := begin(t)
	ns, gw, cls := "escape"+r, "gw", "escape"+r
	namespace(t, ns)
	apply(t, strings.Replace(escapeBlueprint, "name: escape\n", "name: escape_RUN_\n", 1))
	class(t, cls, cls)
	gateway(t, ns, gw, cls)
	apply(t, `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r1, namespace: escape_RUN_}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: backend, port: 80}]}]
---
apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: provider, namespace: escape_RUN_}
spec:
  targetRefs: [{group: "", kind: Namespace, name: escape_RUN_}]
  default: {logLevel: info}
`)
	tenant(t, ns, "tenant", "Gateway", gw, map[string]any{"tags": map[string]any{"team": "a"}})
	tenant(t, ns, "route-tenant", "HTTPRoute", "r1", map[string]any{"tags": map[string]any{"route": "r1"}})

	gwObj := object{gatewayAPI, "Gateway", ns, gw}
	routeObj := object{gatewayAPI, "HTTPRoute", ns, "r1"}
	provider := object{blueprintAPI, "GatewayClassConfig", ns, "provider"}
	configs := []object{provider, {blueprintAPI, "GatewayConfig", ns, "tenant"}, {blueprintAPI, "GatewayConfig", ns, "route-tenant"}}
	eventually(t, "baseline programmed", gatewayCond(t, ns, gw, "Programmed", "True", "Programmed"))
	eventually(t, "baseline applied", dataIs(t, ns, gw+"-nginx", map[string]string{"nginx.conf": "error_log /dev/stderr info;\n"}))
	eventually(t, "baseline route rendered", dataIs(t, ns, "r1-via-gw", map[string]string{"gateway": ns + "/" + gw}))
	for _, c := range configs {
		eventually(t, c.name+" enforced", ancestorCond(t, c.kind, ns, c.name, ns, gw, "Enforced", "True", "Enforced"))
	}
	idle(t, "baseline", seen(append([]object{gwObj, routeObj}, configs...)...))

	// What the controller made, and everything of the kinds a value
	// could try to create, cluster-wide.
	made := map[string]bool{}
	var children []object
	for _, parent := range []object{gwObj, routeObj} {
		p := get(t, parent.apiVersion, parent.kind, parent.ns, parent.name)
		for _, o := range blueprint.Inventoried(p.GetAnnotations(), controllerName) {
			children = append(children, object{o.GetAPIVersion(), o.GetKind(), o.GetNamespace(), o.GetName()})
			made[o.GetAPIVersion()+" "+o.GetKind()] = true
		}
	}
	if len(children) < 5 { // ConfigMap, Deployment, Service, values object; route: ConfigMap, values object
		t.Fatalf("the baseline made %v", children)
	}
	kinds := []string{"v1 ConfigMap", "v1 Service", "v1 Secret", "v1 ServiceAccount", "v1 Pod", "v1 Namespace",
		"apps/v1 Deployment", "apps/v1 DaemonSet", "apps/v1 StatefulSet", "batch/v1 Job",
		"rbac.authorization.k8s.io/v1 ClusterRoleBinding", "rbac.authorization.k8s.io/v1 ClusterRole",
		"rbac.authorization.k8s.io/v1 RoleBinding", "rbac.authorization.k8s.io/v1 Role"}
	for k := range made {
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	// The parents' and the provider's objects: their spec, metadata and,
	// for the provider, status, must not change (the Gateway's and the
	// route's status do).
	fixed := func() map[string]string {
		out := map[string]string{}
		for _, o := range append(children, provider) {
			u := get(t, o.apiVersion, o.kind, o.ns, o.name)
			if u == nil {
				out[o.String()] = "(gone)"
				continue
			}
			out[o.String()] = u.GetResourceVersion()
		}
		for _, o := range []object{gwObj, routeObj} {
			u := get(t, o.apiVersion, o.kind, o.ns, o.name)
			out[o.String()+" metadata and spec"] = jsonOf(t, map[string]any{"metadata": withoutRV(u), "spec": u.Object["spec"]})
		}
		return out
	}
	before, beforeAll := fixed(), everything(t, kinds)

	unchanged := func(t *testing.T) {
		t.Helper()
		if after := fixed(); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("objects changed:\nbefore %v\nafter  %v", before, after)
		}
		afterAll := everything(t, kinds)
		var added []string
		for o := range afterAll {
			// Only this test's: other tests create objects meanwhile.
			if _, ok := beforeAll[o]; !ok && (strings.Contains(o, " "+ns+"/") || strings.Contains(o, "evil") || strings.HasSuffix(o, " for "+ns)) {
				added = append(added, o)
			}
		}
		for o, rv := range beforeAll {
			if strings.Contains(o, " "+ns+"/") && afterAll[o] != rv {
				added = append(added, o+" (changed or gone)")
			}
		}
		sort.Strings(added)
		if len(added) > 0 {
			t.Errorf("new or changed objects: %v", added)
		}
		if get(t, "apps/v1", "Deployment", ns, "escape-evil") != nil || get(t, "rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", "escape-evil") != nil {
			t.Error("the injected object exists")
		}
	}

	evil := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: escape-evil\n  namespace: escape_RUN_\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers: [{name: c, image: evil, securityContext: {privileged: true}}]\n"
	finalizerKey := "x: \"1\"\n  finalizers:\n  - strata.dev/stuck\n  annotations:\n    y"
	long := strings.Repeat("s", 300)
	for _, tc := range []struct {
		name   string
		values map[string]any
		// path is (the start of) the value path the conditions name; msg
		// is in the refusal.
		path, msg string
	}{
		{"(a) a second document in replicas", map[string]any{"replicas": "1\n---\n" + evil},
			".Values.replicas", "spec.replicas"},
		{"(b) a List of a ClusterRoleBinding as annotations", map[string]any{"service": map[string]any{"annotations": map[string]any{
			"apiVersion": "v1", "kind": "List", "items": []any{map[string]any{
				"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": map[string]any{"name": "escape-evil"},
				"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
				"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": "default", "namespace": ns}},
			}},
		}}}, ".Values.service.annotations", "metadata.annotations"},
		{"(c) a tag key adding finalizers", map[string]any{"tags": map[string]any{finalizerKey: "v"}},
			fmt.Sprintf(".Values.tags[%q]", finalizerKey), "metadata.labels: Invalid value"},
		{"(d) capabilities and seccomp next to the locked securityContext", map[string]any{"securityContext": map[string]any{
			"capabilities": map[string]any{"add": []any{"SYS_ADMIN"}}, "seccompProfile": map[string]any{"type": "Unconfined"},
		}}, ".Values.securityContext.capabilities.add", `violates PodSecurity "restricted:latest"`},
		{"(e) a name of 300 characters", map[string]any{"serviceName": long},
			".Values.serviceName", "metadata.name: Invalid value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tenant(t, ns, "tenant", "Gateway", gw, tc.values)
			eventually(t, "the Gateway says why", gatewayCond(t, ns, gw, "Accepted", "False", "InvalidParameters",
				"rendering ", "nothing applied", tc.msg, "value path "+tc.path, "set by GatewayConfig escape_RUN_/tenant (default)"))
			eventually(t, "not programmed", gatewayCond(t, ns, gw, "Programmed", "False", "Invalid"))
			eventually(t, "the config says why", ancestorCond(t, "GatewayConfig", ns, "tenant", ns, gw, "Accepted", "False", "Invalid",
				"value "+tc.path, "(spec.default) refused at Gateway escape_RUN_/gw, nothing applied", tc.msg))
			idle(t, "refusal handled", seen(append([]object{gwObj, routeObj}, configs...)...))
			a := ancestorOf(t, "GatewayConfig", ns, "tenant", map[string]any{"kind": "Gateway", "name": gw})
			t.Logf("Gateway: %s\nGatewayConfig: %s", cond(get(t, gatewayAPI, "Gateway", ns, gw).Object, "Accepted", "status", "conditions").Message, a.cond("Accepted").Message)
			if c := a.cond("Enforced"); c != nil {
				t.Errorf("a refused config still says %s %s", c.Type, c.Status)
			}
			if err := ancestorCond(t, "GatewayClassConfig", ns, "provider", ns, gw, "Enforced", "True", "Enforced")(); err != nil {
				t.Errorf("the provider's config: %v", err)
			}
			if err := routeParent(t, ns, "r1", "Accepted", "True", "Accepted")(); err != nil {
				t.Errorf("the route's render (the tenant's Gateway config does not reach it): %v", err)
			}
			unchanged(t)
		})
	}

	t.Run("(f) a route's config breaking the route's render", func(t *testing.T) {
		tenant(t, ns, "tenant", "Gateway", gw, map[string]any{"tags": map[string]any{"team": "a"}})
		eventually(t, "the Gateway programmed again", gatewayCond(t, ns, gw, "Programmed", "True", "Programmed"))
		eventually(t, "the tenant's config accepted again", ancestorCond(t, "GatewayConfig", ns, "tenant", ns, gw, "Enforced", "True", "Enforced"))
		tenant(t, ns, "route-tenant", "HTTPRoute", "r1", map[string]any{"tags": map[string]any{finalizerKey: "v"}})
		path := fmt.Sprintf(".Values.tags[%q]", finalizerKey)
		eventually(t, "the route says why", routeParent(t, ns, "r1", "Accepted", "False", "InvalidParameters",
			"value path "+path, "set by GatewayConfig escape_RUN_/route-tenant (default)"))
		eventually(t, "the route's config says why", ancestorCond(t, "GatewayConfig", ns, "route-tenant", ns, gw, "Accepted", "False", "Invalid",
			"value "+path, "refused at HTTPRoute escape_RUN_/r1 (rendered for Gateway escape_RUN_/gw)"))
		idle(t, "refusal handled", seen(append([]object{gwObj, routeObj}, configs...)...))
		if err := ancestorCond(t, "GatewayConfig", ns, "tenant", ns, gw, "Enforced", "True", "Enforced")(); err != nil {
			t.Errorf("the Gateway's config: %v", err)
		}
		unchanged(t)
	})

	t.Run("fixed", func(t *testing.T) {
		tenant(t, ns, "route-tenant", "HTTPRoute", "r1", map[string]any{"tags": map[string]any{"route": "r1"}})
		eventually(t, "route accepted", routeParent(t, ns, "r1", "Accepted", "True", "Accepted"))
		for _, c := range configs {
			eventually(t, c.name+" enforced again", ancestorCond(t, c.kind, ns, c.name, ns, gw, "Accepted", "True", "Accepted"))
		}
		idle(t, "fixed", seen(append([]object{gwObj, routeObj}, configs...)...))
		unchanged(t) // the values are those of the baseline
	})
}

// TestEscapeRestart: a controller that starts again knows nothing of the
// renders it refused before; it keeps a config's refused entry as written
// until it has rendered the Gateway again, so the restart writes nothing
// (no Accepted flipping to True and back).
func TestEscapeRestart(t *testing.T) {
	t.Parallel()
	r := begin(t)
	ns, gw, cls, name := "escape-restart"+r, "gw", "escape-restart"+r, "example.com/escape-restart"+r
	namespace(t, ns)
	opts := blueprints.Options{ControllerName: name, FieldManager: "escape-restart" + r}
	first := startControllerWith(t, shared, opts)
	apply(t, strings.Replace(escapeBlueprint, "name: escape\n", "name: escape-restart_RUN_\n", 1))
	classOf(t, cls, name, cls)
	gateway(t, ns, gw, cls)
	tenant(t, ns, "tenant", "Gateway", gw, map[string]any{"replicas": "many"})
	refused := func() error {
		for _, e := range statusList(t, blueprintAPI, "GatewayConfig", ns, "tenant", "ancestors") {
			if a := ancestorEntry(e.(map[string]any)); a["controllerName"] == name {
				return hasCond(a.cond("Accepted"), "Accepted", "False", "Invalid", runName(t, "value .Values.replicas (spec.default) refused at Gateway escape-restart_RUN_/gw"))
			}
		}
		return fmt.Errorf("no entry of %s: %s", name, describeAncestors(t, "GatewayConfig", ns, "tenant"))
	}
	eventually(t, "refusal on the config", refused)
	watched := []object{{gatewayAPI, "Gateway", ns, gw}, {blueprintAPI, "GatewayConfig", ns, "tenant"}}
	idle(t, "refusal written", seen(watched...))
	cfg := get(t, blueprintAPI, "GatewayConfig", ns, "tenant").GetResourceVersion()
	gwRV := get(t, gatewayAPI, "Gateway", ns, gw).GetResourceVersion()

	first.stop()
	again := startControllerWith(t, shared, opts)
	idle(t, "restarted", cached(k8s, again.cache, watched...))
	if err := refused(); err != nil {
		t.Error(err)
	}
	if got := get(t, blueprintAPI, "GatewayConfig", ns, "tenant").GetResourceVersion(); got != cfg {
		t.Errorf("the restart wrote the config's status (resourceVersion %s, was %s): %s", got, cfg, describeAncestors(t, "GatewayConfig", ns, "tenant"))
	}
	if got := get(t, gatewayAPI, "Gateway", ns, gw).GetResourceVersion(); got != gwRV {
		t.Errorf("the restart wrote the Gateway (resourceVersion %s, was %s)", got, gwRV)
	}
}

// tenant applies a GatewayConfig targeting kind/name with values as its
// default block.
func tenant(t *testing.T, ns, name, kind, target string, values map[string]any) {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"apiVersion": blueprintAPI, "kind": "GatewayConfig",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{
			"targetRefs": []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": kind, "name": target}},
			"default":    values,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, string(b))
}

// everything lists every object of kinds ("apiVersion Kind") in the
// cluster, as "Kind namespace/name" -> resourceVersion; a cluster-scoped
// object rendered for a parent in namespace N is "Kind /name for N".
func everything(t *testing.T, kinds []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, k := range kinds {
		apiVersion, kind, _ := strings.Cut(k, " ")
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(schema.FromAPIVersionAndKind(apiVersion, kind+"List"))
		if err := k8s.List(context.Background(), l); err != nil {
			t.Fatalf("list %s: %v", k, err)
		}
		for _, o := range l.Items {
			k := kind + " " + o.GetNamespace() + "/" + o.GetName()
			if parentNS := o.GetLabels()[render.LabelParentNamespace]; o.GetNamespace() == "" && parentNS != "" {
				k += " for " + parentNS
			}
			out[k] = o.GetResourceVersion()
		}
	}
	return out
}

// withoutRV is an object's metadata without what a status write changes.
func withoutRV(u *unstructured.Unstructured) map[string]any {
	m, _, _ := unstructured.NestedMap(u.Object, "metadata")
	delete(m, "resourceVersion")
	delete(m, "managedFields")
	return m
}
