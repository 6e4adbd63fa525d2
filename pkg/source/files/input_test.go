package files_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/strata-dev/strata/pkg/source/files"
)

// colorKind declares ColorPolicy, for the policies of the cases below.
const colorKind = "apiVersion: strata.dev/v1alpha1\nkind: PolicyKind\nmetadata: {name: colorpolicies.policies.example.com}\nspec: {group: policies.example.com, kind: ColorPolicy}\n---\n"

// TestReadWrongInput pins the inputs that were once read to a wrong answer
// with no error (issue "Correct on every input"): each is now an error
// naming the file, the document and the field, or is read in full.
func TestReadWrongInput(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		// files, written into a temporary directory, replace stdin when
		// set; a file's content may be built by setup instead.
		setup func(t *testing.T, dir string) []string
		want  string   // the exact error, with {dir} for the temporary directory
		read  []string // when want is empty: what is read
		// namespace is ReadIn's (-n); "" reads with Read.
		namespace string
		// assembled errors come from placing the documents in a
		// snapshot: each document reads fine on its own.
		assembled bool
	}{
		// 1. metadata.name and metadata.creationTimestamp.
		{
			name:  "policy without metadata.name",
			stdin: colorKind + "apiVersion: policies.example.com/v1\nkind: ColorPolicy\nmetadata: {namespace: app}\nspec:\n  targetRef: {group: '', kind: Namespace, name: app}\n",
			want:  "-: document 2 (ColorPolicy): metadata.name is required",
		},
		{
			name:  "policy with a name that is not a string",
			stdin: colorKind + "apiVersion: policies.example.com/v1\nkind: ColorPolicy\nmetadata: {name: 42, namespace: app}\nspec:\n  targetRef: {group: '', kind: Namespace, name: app}\n",
			want:  "-: document 2 (ColorPolicy): metadata.name must be a string, not a number (42)",
		},
		{
			name:  "policy with a creationTimestamp that is not RFC 3339",
			stdin: colorKind + "apiVersion: policies.example.com/v1\nkind: ColorPolicy\nmetadata: {name: p, namespace: app, creationTimestamp: yesterday}\nspec:\n  targetRef: {group: '', kind: Namespace, name: app}\n",
			want:  `-: document 2 (ColorPolicy app/p): metadata.creationTimestamp "yesterday" is not an RFC 3339 time (2006-01-02T15:04:05Z)`,
		},
		{
			name:  "typed object on the fast path without metadata.name",
			stdin: "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  namespace: infra\nspec:\n  gatewayClassName: gc\n",
			want:  "-: document 1 (Gateway): metadata.name is required",
		},
		{
			name:  "typed object with a creationTimestamp that is not RFC 3339",
			stdin: "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: gw\n  namespace: infra\n  creationTimestamp: '2024-13-01'\nspec:\n  gatewayClassName: gc\n",
			want:  `-: document 1 (Gateway infra/gw): metadata.creationTimestamp "2024-13-01" is not an RFC 3339 time (2006-01-02T15:04:05Z)`,
		},
		{
			name:  "policy CRD without metadata.name",
			stdin: "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  labels: {gateway.networking.k8s.io/policy: direct}\nspec: {}\n",
			want:  "-: document 1 (CustomResourceDefinition): metadata.name is required",
		},
		// 2. JSON streams and Lists.
		{
			name:  "concatenated JSON objects are all read",
			stdin: `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "app"}}{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "b", "namespace": "app"}}` + "\n" + `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "c", "namespace": "app"}}`,
			read:  []string{"Services app/a", "Services app/b", "Services app/c"},
		},
		{
			name:  "concatenated JSON objects are numbered as documents",
			stdin: `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "app"}}` + "\n" + `{"apiVersion": "v1", "kind": "Service", "metadata": {"namespace": "app"}}`,
			want:  "-: document 2 (Service): metadata.name is required",
		},
		{
			name:  "concatenated JSON objects after a comment",
			stdin: "# two objects\n" + `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "app"}}` + "\n" + `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "b", "namespace": "app"}} # end` + "\n# done\n",
			read:  []string{"Services app/a", "Services app/b"},
		},
		{
			name:  "garbage after a JSON object",
			stdin: `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "app"}} garbage`,
			want:  "-: document 2: invalid JSON after document 1: invalid character 'g' looking for beginning of value",
		},
		{
			name:  "List inside a List is expanded",
			stdin: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a, namespace: app}\n- apiVersion: v1\n  kind: List\n  items:\n  - apiVersion: v1\n    kind: Service\n    metadata: {name: b, namespace: app}\n",
			read:  []string{"Services app/a", "Services app/b"},
		},
		{
			name:  "List item of a nested List without a kind",
			stdin: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items: [{apiVersion: v1, metadata: {name: a}}]\n",
			want:  "-: document 1 (List): items[0].items[0]: apiVersion and kind are required",
		},
		{
			name:  "List whose items is not a list",
			stdin: "apiVersion: v1\nkind: List\nitems: {apiVersion: v1, kind: Service, metadata: {name: a, namespace: app}}\n",
			want:  "-: document 1 (List): items must be a list, not an object",
		},
		// 3. What a path may name.
		{
			name: "symlink to a device",
			setup: func(t *testing.T, dir string) []string {
				p := filepath.Join(dir, "zero.yaml")
				if err := os.Symlink("/dev/zero", p); err != nil {
					t.Fatal(err)
				}
				return []string{p}
			},
			want: "{dir}/zero.yaml: not a regular file (Dcrw-rw-rw-): strata reads files, directories and - (stdin)",
		},
		{
			name: "FIFO in a directory",
			setup: func(t *testing.T, dir string) []string {
				if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o600); err != nil {
					t.Fatal(err)
				}
				return []string{dir}
			},
			want: "{dir}/pipe.yaml: not a regular file (prw-------): strata reads files, directories and - (stdin)",
		},
		{
			name: "file over the size limit",
			setup: func(t *testing.T, dir string) []string {
				p := filepath.Join(dir, "big.yaml")
				f, err := os.Create(p)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				// Sparse: no disk is used.
				if err := f.Truncate(files.MaxFileSize + 1); err != nil {
					t.Fatal(err)
				}
				return []string{p}
			},
			want: "{dir}/big.yaml: 268435457 bytes, over the 256 MiB an input may hold",
		},
		// 4. One object, one place (issue 11: "two objects with the same
		// kind/namespace/name"), and the namespace kubectl apply would
		// give an object that names none.
		{
			name: "the same Gateway in two files",
			setup: func(t *testing.T, dir string) []string {
				write(t, dir, "a.yaml", "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec: {gatewayClassName: gc}\n")
				write(t, dir, "b.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: infra}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec: {gatewayClassName: gc}\n")
				return []string{dir}
			},
			want:      "Gateway.gateway.networking.k8s.io infra/gw is given twice, in {dir}/a.yaml: document 1 and in {dir}/b.yaml: document 2: keep one (kubectl apply would keep the last one silently)",
			assembled: true,
		},
		{
			name:      "the same policy twice",
			stdin:     colorKind + "apiVersion: policies.example.com/v1\nkind: ColorPolicy\nmetadata: {name: p, namespace: app}\nspec:\n  targetRef: {group: '', kind: Namespace, name: app}\n---\napiVersion: policies.example.com/v1\nkind: ColorPolicy\nmetadata: {name: p, namespace: app}\nspec:\n  targetRef: {group: '', kind: Namespace, name: app}\n",
			want:      "ColorPolicy.policies.example.com app/p is given twice, in -: document 2 and in -: document 3: keep one (kubectl apply would keep the last one silently)",
			assembled: true,
		},
		{
			name:      "the same PolicyKind twice",
			stdin:     colorKind + colorKind,
			want:      "PolicyKind.strata.dev colorpolicies.policies.example.com is given twice, in -: document 1 and in -: document 2: keep one (kubectl apply would keep the last one silently)",
			assembled: true,
		},
		{
			name:      "the same policy CRD twice",
			stdin:     "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: colorpolicies.policies.example.com\n  labels: {gateway.networking.k8s.io/policy: inherited}\nspec: {group: policies.example.com, names: {kind: ColorPolicy, plural: colorpolicies}, scope: Namespaced}\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: colorpolicies.policies.example.com\n  labels: {gateway.networking.k8s.io/policy: inherited}\nspec: {group: policies.example.com, names: {kind: ColorPolicy, plural: colorpolicies}, scope: Namespaced}\n",
			want:      "CustomResourceDefinition.apiextensions.k8s.io colorpolicies.policies.example.com is given twice, in -: document 1 and in -: document 2: keep one (kubectl apply would keep the last one silently)",
			assembled: true,
		},
		{
			name:      "a Gateway without namespace and the same one in default",
			stdin:     "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw}\nspec: {gatewayClassName: gc}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: default}\nspec: {gatewayClassName: gc}\n",
			want:      "Gateway.gateway.networking.k8s.io default/gw is given twice, in -: document 1 and in -: document 2: keep one (kubectl apply would keep the last one silently)",
			assembled: true,
		},
		{
			name:  "one name in two namespaces, or for two kinds",
			stdin: "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec: {gatewayClassName: gc}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: default}\nspec: {gatewayClassName: gc}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: gw, namespace: infra}\n",
			read:  []string{"Gateways infra/gw", "Gateways default/gw", "Services infra/gw"},
		},
		{
			name:  "objects without namespace go to default, cluster-scoped ones stay without",
			stdin: "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw}\nspec: {gatewayClassName: gc}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: gc}\nspec: {controllerName: example.com/c}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: app}\n",
			read:  []string{"Namespaces app", "GatewayClasses gc", "Gateways default/gw"},
		},
		{
			name:      "objects without namespace go to -n",
			stdin:     "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw}\nspec: {gatewayClassName: gc}\n",
			namespace: "infra",
			read:      []string{"Gateways infra/gw"},
		},
		{
			name:      "policy without namespace of a Namespaced CRD goes to -n",
			stdin:     "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: colorpolicies.policies.example.com\n  labels: {gateway.networking.k8s.io/policy: inherited}\nspec: {group: policies.example.com, names: {kind: ColorPolicy, plural: colorpolicies}, scope: Namespaced}\n---\napiVersion: policies.example.com/v1\nkind: ColorPolicy\nmetadata: {name: p}\nspec:\n  targetRef: {group: '', kind: Namespace, name: app}\n",
			namespace: "app",
			read:      []string{"PolicyCRDs colorpolicies.policies.example.com", "CRDs colorpolicies.policies.example.com", "Policies app/p"},
		},
		{
			name:  "policy without namespace of a Cluster CRD stays cluster-scoped",
			stdin: "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: colorpolicies.policies.example.com\n  labels: {gateway.networking.k8s.io/policy: inherited}\nspec: {group: policies.example.com, names: {kind: ColorPolicy, plural: colorpolicies}, scope: Cluster}\n---\napiVersion: policies.example.com/v1\nkind: ColorPolicy\nmetadata: {name: p}\nspec:\n  targetRef: {group: '', kind: Namespace, name: app}\n",
			read:  []string{"PolicyCRDs colorpolicies.policies.example.com", "CRDs colorpolicies.policies.example.com", "Policies p"},
		},
		{
			name:  "policy without namespace of a kind without its CRD is read as written",
			stdin: colorKind + "apiVersion: policies.example.com/v1\nkind: ColorPolicy\nmetadata: {name: p}\nspec:\n  targetRef: {group: '', kind: Namespace, name: app}\n",
			read:  []string{"Declarations colorpolicies.policies.example.com", "Policies p"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			paths := []string{"-"}
			if tc.setup != nil {
				paths = tc.setup(t, dir)
			}
			var res *files.Result
			var err error
			if tc.namespace == "" {
				res, err = files.Read(paths, strings.NewReader(tc.stdin))
			} else {
				res, err = files.ReadIn(paths, strings.NewReader(tc.stdin), tc.namespace)
			}
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				if got := summary(res.Snapshot); !slices.Equal(got, tc.read) {
					t.Errorf("snapshot:\n got %q\nwant %q", got, tc.read)
				}
				return
			}
			want := strings.ReplaceAll(tc.want, "{dir}", dir)
			if err == nil {
				t.Fatalf("Read succeeded: %v; want error %q", summary(res.Snapshot), want)
			}
			if err.Error() != want {
				t.Errorf("error\n got %q\nwant %q", err, want)
			}
			// Documents, for --with-file, reads as Read does.
			if _, derr := files.Documents(paths, strings.NewReader(tc.stdin)); derr == nil && !strings.Contains(want, "metadata.") && !tc.assembled {
				t.Errorf("Documents succeeded; Read failed with %q", want)
			}
		})
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReadStdinOverLimit checks that stdin is read up to the limit, not
// to its end: /dev/zero piped in is an error, not a hang.
func TestReadStdinOverLimit(t *testing.T) {
	f, err := os.Open("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = files.Read([]string{"-"}, f)
	if want := "-: over the 256 MiB an input may hold"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}
