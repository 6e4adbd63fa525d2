package objchange

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestChanged(t *testing.T) {
	base := func() *corev1.Service {
		return &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "s", ResourceVersion: "1", Annotations: map[string]string{"mine": "a", "theirs": "b"}},
			Spec:       corev1.ServiceSpec{ClusterIP: "10.0.0.1"},
		}
	}
	mine := func(k string) bool { return k == "mine" }
	for _, tc := range []struct {
		name   string
		edit   func(*corev1.Service)
		ignore func(string) bool
		want   bool
	}{
		{"same resourceVersion", func(*corev1.Service) {}, nil, false},
		{"bookkeeping only", func(s *corev1.Service) {
			s.ResourceVersion = "2"
			s.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "x"}}
		}, nil, false},
		{"status only", func(s *corev1.Service) {
			s.ResourceVersion = "2"
			s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "1.2.3.4"}}
		}, nil, false},
		{"spec", func(s *corev1.Service) { s.ResourceVersion = "2"; s.Spec.ClusterIP = "10.0.0.2" }, nil, true},
		{"ignored annotation", func(s *corev1.Service) { s.ResourceVersion = "2"; s.Annotations["mine"] = "z" }, mine, false},
		{"other annotation", func(s *corev1.Service) { s.ResourceVersion = "2"; s.Annotations["theirs"] = "z" }, mine, true},
		{"every annotation ignored", func(s *corev1.Service) { s.ResourceVersion = "2"; s.Annotations = nil }, All, false},
		{"annotations count without ignore", func(s *corev1.Service) { s.ResourceVersion = "2"; s.Annotations = nil }, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := base()
			tc.edit(n)
			if got := Changed(base(), n, tc.ignore); got != tc.want {
				t.Fatalf("Changed = %v, want %v", got, tc.want)
			}
		})
	}
}
