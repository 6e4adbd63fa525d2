package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/sink/web"
	"github.com/strata-dev/strata/pkg/source/files"
)

// TestServe: serve answers the web view's API until its context ends,
// then returns without error. (The pages themselves are tested in a
// browser: pkg/sink/web.)
func TestServe(t *testing.T) {
	src, err := files.Read([]string{discParable}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(src.Snapshot, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var errb bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- serve(ctx, Streams{Err: &errb}, l, web.NewServer(web.NewWorld(res), web.Limits{})) }()
	resp, err := http.Get("http://" + l.Addr().String() + "/api/search?q=kind:retrypolicy")
	if err != nil {
		t.Fatal(err)
	}
	var got web.Results
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got.Total == 0 {
		t.Errorf("search found no RetryPolicy in the parable")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve returned %v after its context ended", err)
	}
	if !strings.Contains(errb.String(), "http://"+l.Addr().String()+"/") {
		t.Errorf("serve did not say where it listens: %q", errb.String())
	}
}

// TestServeFlags: -f contacts no cluster, so kubectl flags are refused,
// and a bad address is named.
func TestServeFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "-f", discParable, "--context", "prod"}, "--context: -f reads only files"},
		{[]string{"serve", "-f", discParable, "--address", "nowhere:-1"}, "--address nowhere:-1:"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, code := strata(t, "", tc.args...)
			if code != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, tc.want)
			}
		})
	}
}
