package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-dev/strata/internal/testenv"
)

// The committed table is what the API server of the pinned Kubernetes and
// Gateway API versions serves: it drifts when either is bumped (or the
// generator changes), and this fails until it is regenerated.
func TestGeneratedUpToDate(t *testing.T) {
	root, err := testenv.Root()
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join(root, Output))
	if err != nil {
		t.Fatal(err)
	}
	env, err := start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stop API server: %v", err)
		}
	})
	got, err := generate(context.Background(), env.Config)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(committed), string(got)); diff != "" {
		t.Errorf("%s is out of date (-committed +discovered):\n%s\nrun go run ./hack/kinds and commit the result", Output, diff)
	}
}
