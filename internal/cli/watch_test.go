package cli

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// syncBuffer is a bytes.Buffer that a command writes while a test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testWatch: `get policies -A -w` prints the list, then prints it again
// when a policy is created, and ends when its context does (Ctrl-C);
// --watch on files is refused (issue 18, "-w/--watch on live clusters").
func testWatch(t *testing.T, lc *liveCluster) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out, errOut := &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- MainContext(ctx, []string{"get", "policies", "-A", "-w", "--kubeconfig", lc.admin}, Streams{In: strings.NewReader(""), Out: out, Err: errOut})
	}()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) { return cond(), nil })
		if err != nil {
			t.Fatalf("waited for %s: %v; stdout:\n%s\nstderr:\n%s", what, err, out, errOut)
		}
	}
	waitFor("the first list", func() bool { return strings.Contains(out.String(), "default/p1") })
	first := out.String()
	p9 := &unstructured.Unstructured{}
	p9.SetAPIVersion("policies.controller.io/v1")
	p9.SetKind("ColorPolicy")
	p9.SetNamespace("default")
	p9.SetName("p9-watched")
	_ = unstructured.SetNestedSlice(p9.Object, []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "g2"}}, "spec", "targetRefs")
	// The watches are set up after the first list, and the list is read
	// once more then: a create before the watches is not missed either.
	if err := lc.client.Create(ctx, p9); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := lc.client.Delete(context.Background(), p9); err != nil {
			t.Errorf("delete p9-watched: %v", err)
		}
	}()
	waitFor("the list printed again with the new policy", func() bool { return strings.Contains(strings.TrimPrefix(out.String(), first), "default/p9-watched") })
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after Ctrl-C; stderr: %s", code, errOut)
	}
	if n := strings.Count(out.String(), "default/p1 "); n < 2 {
		t.Errorf("the list was printed %d times, want the first and the changed one", n)
	}

	_, e, code := strata(t, "", "get", "policies", "-w", "-f", example3Dir)
	if code != 1 || !strings.Contains(e, "--watch follows a live cluster") {
		t.Errorf("-w with -f: exit %d, %q", code, e)
	}
}

// watching is a `strata ... -w` run in the background, for the tests of
// --watch: its output, read while it runs, and its exit code.
type watching struct {
	t           *testing.T
	out, errOut *syncBuffer
	cancel      context.CancelFunc
	done        chan int
	stopped     sync.Once
	code        int
}

// startWatching runs strata with args (which hold -w) until stop.
func startWatching(t *testing.T, args ...string) *watching {
	ctx, cancel := context.WithCancel(t.Context())
	w := &watching{t: t, out: &syncBuffer{}, errOut: &syncBuffer{}, cancel: cancel, done: make(chan int, 1)}
	go func() {
		w.done <- MainContext(ctx, args, Streams{In: strings.NewReader(""), Out: w.out, Err: w.errOut})
	}()
	// A test that fails before stop still ends the command.
	t.Cleanup(func() { w.stop() })
	return w
}

// waitFor waits until cond holds of stdout, or fails the test after a
// deadline long enough for a slow machine: it waits on the output, not
// on time.
func (w *watching) waitFor(what string, cond func(out string) bool) {
	w.t.Helper()
	err := wait.PollUntilContextTimeout(w.t.Context(), 50*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) { return cond(w.out.String()), nil })
	if err != nil {
		w.t.Fatalf("waited for %s: %v; stdout:\n%s\nstderr:\n%s", what, err, w.out, w.errOut)
	}
}

// stop is Ctrl-C: it cancels the command's context and returns its exit
// code.
func (w *watching) stop() int {
	w.stopped.Do(func() {
		w.cancel()
		w.code = <-w.done
	})
	return w.code
}

// watchedPolicy is a ColorPolicy of example 3's kind, made for a watch
// test and deleted when it ends.
func watchedPolicy(t *testing.T, lc *liveCluster, name string, target map[string]any, spec map[string]any) *unstructured.Unstructured {
	t.Helper()
	p := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	p.SetAPIVersion("policies.controller.io/v1")
	p.SetKind("ColorPolicy")
	p.SetNamespace("default")
	p.SetName(name)
	_ = unstructured.SetNestedSlice(p.Object, []any{target}, "spec", "targetRefs")
	if err := lc.client.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := lc.client.Delete(context.Background(), p); err != nil {
			t.Errorf("delete ColorPolicy %s: %v", name, err)
		}
	})
	return p
}

// patchPolicy changes a policy on the API server with a JSON merge patch.
func patchPolicy(t *testing.T, lc *liveCluster, p *unstructured.Unstructured, patch string) {
	t.Helper()
	if err := lc.client.Patch(t.Context(), p.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		t.Fatalf("patch ColorPolicy %s with %s: %v", p.GetName(), patch, err)
	}
}

// A change made while a -w command runs, and what its output shows of
// it once printed again.
type watchStep struct {
	what  string
	patch string                // a JSON merge patch of the policy
	shows func(out string) bool // of the output printed since the last step
}

// followChanges makes each change in turn and waits until the command
// has printed the answer again, after a blank line, showing it. The
// first change may land before the watches are set up (the command then
// reads the cluster once more); the command prints its answer again
// only once they are, so a second change is seen by a watch.
func followChanges(t *testing.T, lc *liveCluster, w *watching, p *unstructured.Unstructured, steps []watchStep) {
	t.Helper()
	seen := w.out.String()
	for _, st := range steps {
		patchPolicy(t, lc, p, st.patch)
		w.waitFor(st.what, func(out string) bool { return st.shows(strings.TrimPrefix(out, seen)) })
		again := strings.TrimPrefix(w.out.String(), seen)
		if !strings.HasPrefix(again, "\n") {
			t.Errorf("%s: the answer printed again does not follow a blank line:\n%s", st.what, again)
		}
		seen += again
	}
}

// testWatchDescribe: `describe httproute/r2 -w` prints the description,
// then prints it again each time the value a policy sets on it changes
// on the API server; Ctrl-C ends it with exit code 0.
func testWatchDescribe(t *testing.T, lc *liveCluster) {
	p := watchedPolicy(t, lc, "p8-describe-watched",
		map[string]any{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "name": "r2"},
		map[string]any{"colors": map[string]any{"dark": "navy"}})
	w := startWatching(t, "describe", "httproute/r2", "-n", "default", "-w", "--kubeconfig", lc.admin)
	w.waitFor("the first description, with the policy's value", func(out string) bool {
		return strings.Contains(out, "/colors/dark") && strings.Contains(out, "navy")
	})
	// The description of r2 with /colors/dark set by the policy to value.
	darkIs := func(value string) func(string) bool {
		return func(out string) bool {
			return strings.HasPrefix(out, "\nHTTPRoute default/r2\n") && strings.Contains(out, "/colors/dark   "+value+" ")
		}
	}
	followChanges(t, lc, w, p, []watchStep{
		{"the description printed again with teal", `{"spec":{"colors":{"dark":"teal"}}}`, darkIs("teal")},
		{"the description printed again with plum", `{"spec":{"colors":{"dark":"plum"}}}`, darkIs("plum")},
	})
	if code := w.stop(); code != 0 {
		t.Errorf("exit %d after Ctrl-C; stderr: %s", code, w.errOut)
	}
}

// testWatchStatus: `status -n default -w` prints the status Strata would
// write, then prints it again each time a policy's target changes: to
// one that does not exist (TargetNotFound), then back; Ctrl-C ends it
// with exit code 0.
func testWatchStatus(t *testing.T, lc *liveCluster) {
	p := watchedPolicy(t, lc, "p7-status-watched",
		map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "g2"},
		map[string]any{"colors": map[string]any{"light": "white"}})
	w := startWatching(t, "status", "-n", "default", "-w", "--kubeconfig", lc.admin,
		"-o", "custom-columns=NAME:.metadata.name,REASONS:.status.ancestors[*].conditions[*].reason")
	// The reasons on the policy's line.
	reasons := func(out string) string {
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == p.GetName() {
				return f[1]
			}
		}
		return ""
	}
	accepted := func(out string) bool { return strings.HasPrefix(reasons(out), "Accepted,") }
	w.waitFor("the first status, the policy accepted", accepted)
	followChanges(t, lc, w, p, []watchStep{
		{"the status printed again, the policy's target not found",
			`{"spec":{"targetRefs":[{"group":"gateway.networking.k8s.io","kind":"Gateway","name":"g-missing"}]}}`,
			func(out string) bool { return reasons(out) == "TargetNotFound" }},
		{"the status printed again, the policy accepted again",
			`{"spec":{"targetRefs":[{"group":"gateway.networking.k8s.io","kind":"Gateway","name":"g2"}]}}`,
			accepted},
	})
	if code := w.stop(); code != 0 {
		t.Errorf("exit %d after Ctrl-C; stderr: %s", code, w.errOut)
	}
}
