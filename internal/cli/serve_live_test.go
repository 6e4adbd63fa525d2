package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/strata-dev/strata/pkg/sink/web"
)

// startServe runs `strata serve --address 127.0.0.1:0 ARGS...` until the
// test ends and returns the URL it prints.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	root := NewRoot(Streams{In: strings.NewReader(""), Out: io.Discard, Err: pw})
	root.SetArgs(append([]string{"serve", "--address", "127.0.0.1:0"}, args...))
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx); pw.Close() }()
	url := make(chan string, 1)
	var lines []string
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			lines = append(lines, line)
			t.Log(line)
			if rest, ok := strings.CutPrefix(line, "strata serve: "); ok {
				u, _, _ := strings.Cut(rest, " ")
				url <- strings.TrimSuffix(u, "/")
			}
		}
		close(url)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		<-read
	})
	u, ok := <-url
	if !ok {
		<-read
		t.Fatalf("serve stopped before it listened: %s", strings.Join(lines, "\n"))
	}
	return u
}

func overviewOf(t *testing.T, base string) web.Overview {
	t.Helper()
	resp, err := http.Get(base + "/api/overview")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var o web.Overview
	if err := json.NewDecoder(resp.Body).Decode(&o); err != nil {
		t.Fatal(err)
	}
	return o
}

// TestServeLive: against a real API server, the web view shows what the
// user may read, names what it may not, and when a watch sees a change
// the open pages are told to reload (Server-Sent Events) and the next
// answer has the change.
func TestServeLive(t *testing.T) {
	lc := startLive(t)

	t.Run("not visible", func(t *testing.T) {
		o := overviewOf(t, startServe(t, "--kubeconfig", lc.noPolicies))
		if !slices.ContainsFunc(o.NotVisible, func(s string) bool { return strings.HasPrefix(s, "ColorPolicy.") }) {
			t.Errorf("notVisible %v: want ColorPolicy, which the user may not list", o.NotVisible)
		}
		if o.Counts["Policies"] != 0 || o.Counts["Service"] == 0 {
			t.Errorf("counts %v: want the Services and no policy", o.Counts)
		}
	})

	t.Run("reload on change", func(t *testing.T) {
		base := startServe(t, "--kubeconfig", lc.admin)
		before := overviewOf(t, base)
		if !before.Live || len(before.NotVisible) != 0 {
			t.Errorf("overview: live %v, notVisible %v; want live and everything visible", before.Live, before.NotVisible)
		}
		resp, err := http.Get(base + "/api/events")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		events := bufio.NewScanner(resp.Body)
		if !events.Scan() || events.Text() != ": connected" {
			t.Fatalf("event stream starts with %q, want : connected", events.Text())
		}
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "new", Namespace: "default"},
			Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
		}
		if err := lc.client.Create(t.Context(), svc); err != nil {
			t.Fatal(err)
		}
		for events.Scan() && events.Text() != "event: reload" {
		}
		if err := events.Err(); err != nil {
			t.Fatalf("event stream: %v", err)
		}
		if after := overviewOf(t, base); after.Counts["Service"] != before.Counts["Service"]+1 {
			t.Errorf("after the reload: %d Services, want %d", after.Counts["Service"], before.Counts["Service"]+1)
		}
		// Later changes are taken by the live model the first one made:
		// a second Service, then the first one deleted.
		svc2 := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "new2", Namespace: "default"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
		if err := lc.client.Create(t.Context(), svc2); err != nil {
			t.Fatal(err)
		}
		for events.Scan() && events.Text() != "event: reload" {
		}
		if after := overviewOf(t, base); after.Counts["Service"] != before.Counts["Service"]+2 {
			t.Errorf("after a second Service: %d Services, want %d", after.Counts["Service"], before.Counts["Service"]+2)
		}
		if err := lc.client.Delete(t.Context(), svc); err != nil {
			t.Fatal(err)
		}
		for events.Scan() && events.Text() != "event: reload" {
		}
		if after := overviewOf(t, base); after.Counts["Service"] != before.Counts["Service"]+1 {
			t.Errorf("after the first Service is deleted: %d Services, want %d", after.Counts["Service"], before.Counts["Service"]+1)
		}
	})
}
