package cli

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
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
