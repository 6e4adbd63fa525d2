package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/strata-dev/strata/pkg/sink/web"
)

// newServe is `strata serve`: the web view (pkg/sink/web) of what the
// source flags read, on --address until interrupted. Read-only.
func newServe(s Streams) *cobra.Command {
	var f sourceFlags
	var address string
	c := &cobra.Command{
		Use:   "serve [-f PATH...] [--address HOST:PORT]",
		Short: "Serve a read-only web view: topology, policies by standing, object and policy pages, search",
		Long: `Serves a web view of the objects read from files (-f) or the live cluster
of the kubeconfig: an overview (GatewayClasses, Gateways with their route
and policy counts), the topology around any object with its policies
coloured by standing (Enforced, PartiallyEnforced, Overridden, Conflicted,
Invalid, TargetNotFound), each object's page (what strata describe says),
each policy's page (where it is in force, and what deleting it would
change, as strata impact --delete says) and a search by name, kind,
namespace and label. The pages are embedded in the binary. See
docs/web.md.

Read from a cluster, the view is what the kubeconfig's user may read, read
once when the command starts.`,
		Example: `  strata serve -f examples/parable/
  strata serve --address 127.0.0.1:9000`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			res, err := f.load(s)
			if err != nil {
				return err
			}
			l, err := net.Listen("tcp", address)
			if err != nil {
				return fmt.Errorf("--address %s: %w", address, err)
			}
			ctx, stop := signal.NotifyContext(orBackground(c.Context()), os.Interrupt, syscall.SIGTERM)
			defer stop()
			srv := web.NewServer(web.NewWorld(res), web.Limits{})
			return serve(ctx, s, l, srv)
		},
	}
	f.bind(c)
	c.Flags().StringVar(&address, "address", "127.0.0.1:8088", "the address to listen on (HOST:PORT); the default answers this machine only")
	return c
}

// orBackground is ctx, or a background context when cobra was given none.
func orBackground(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

// serve answers h on l until ctx is done, then shuts down, giving open
// requests a second to finish.
func serve(ctx context.Context, s Streams, l net.Listener, h http.Handler) error {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(s.Err, "strata serve: http://%s/ (Ctrl-C stops)\n", l.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); errors.Is(err, context.DeadlineExceeded) {
		return hs.Close() // event streams stay open until closed
	} else if err != nil {
		return err
	}
	return nil
}
