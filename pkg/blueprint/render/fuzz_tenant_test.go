package render

import (
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/strata-dev/strata/pkg/blueprint/values"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// FuzzTenantValues fills every value of the example blueprint
// (examples/blueprints) that a tenant's GatewayConfig can set with fuzzed
// strings, keys included: whatever they hold, the render has the same
// objects (kinds, namespaces, names) and the same JSON paths as a render
// with harmless values (a tenant's map key standing for itself), or it is
// refused with an *Error that names the tenant's config and a value path.
// Never a new object, a moved one, or a new field.
func FuzzTenantValues(f *testing.F) {
	fx := loadFixture(f, "../../../examples/blueprints/blueprint.yaml")
	gw := &gwv1.Gateway{
		TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "Gateway"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web"},
		Spec: gwv1.GatewaySpec{GatewayClassName: "internet", Listeners: []gwv1.Listener{
			{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType},
		}},
	}
	render := func(t *testing.T, s [8]string) (*Output, error) {
		vals := map[string]any{
			"image": s[0], "logLevel": s[1], "replicas": s[2],
			"service": map[string]any{"type": s[3], "annotations": map[string]any{"k" + s[4]: s[5]}},
			"tags":    map[string]any{"t" + s[6]: s[7]},
		}
		cfg := atLevel(t, values.LevelConfigParent, "tenant", 1, vals, nil)
		v, err := values.Merge(fx.bp, gwPar, []*values.Config{cfg}, ctrlNS)
		if err != nil {
			t.Fatal(err)
		}
		return Render(Input{Blueprint: fx.bp, Gateway: gw, Values: v.Values, Sources: v.Leaves}, kindsOf(StaticScope(nil)))
	}
	type shapeOf struct {
		objects []string
		paths   []string
	}
	shapeFor := func(t *testing.T, out *Output, s [8]string) shapeOf {
		var sh shapeOf
		for _, o := range out.Objects {
			id := o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
			sh.objects = append(sh.objects, id)
			p := map[string]any{}
			leaves("", o.Object, p)
			for path := range p {
				segs := strings.Split(path, "/")
				for i, seg := range segs {
					switch {
					case i == len(segs)-1 && seg == pointerEscape("k"+s[4]) && segs[i-1] == "annotations":
						segs[i] = "<annotation>"
					case i == len(segs)-1 && seg == pointerEscape("t"+s[6]) && segs[i-1] == "labels":
						segs[i] = "<tag>"
					}
				}
				sh.paths = append(sh.paths, id+strings.Join(segs, "/"))
			}
		}
		sort.Strings(sh.objects)
		sort.Strings(sh.paths)
		return sh
	}
	harmless := [8]string{"img", "warn", "1", "ClusterIP", "a", "b", "c", "d"}
	f.Add("img", "warn", "1", "ClusterIP", "a", "b", "c", "d")
	f.Add("1\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: evil", "a: b", "2\nkind: List", "{", "x: y\n  finalizers: [x]", "*a", "\x00", "\xff")
	f.Add("", "", "", "", "", "", "", "")
	f.Fuzz(func(t *testing.T, a, b, c, d, e, g, h, i string) {
		s := [8]string{a, b, c, d, e, g, h, i}
		for j := range s {
			// Values reach templates through JSON: invalid UTF-8 is
			// already replaced there.
			s[j] = strings.ToValidUTF8(s[j], "\uFFFD")
		}
		base, err := render(t, harmless)
		if err != nil {
			t.Fatal(err)
		}
		want := shapeFor(t, base, harmless)
		out, err := render(t, s)
		if err != nil {
			var re *Error
			if !errors.As(err, &re) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if re.Source == nil || re.Source.Name != "tenant" || re.Path == "" {
				t.Fatalf("refusal does not name the tenant's config and value: %v", err)
			}
			return
		}
		if got := shapeFor(t, out, s); !reflect.DeepEqual(got.objects, want.objects) || !reflect.DeepEqual(got.paths, want.paths) {
			t.Fatalf("values %q changed the rendered shape:\nobjects %v\nwant    %v\npaths %v\nwant  %v", s, got.objects, want.objects, got.paths, want.paths)
		}
	})
}
