package cli

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
)

// switchWriter is stdout that --watch points at a buffer, to print only changes.
type switchWriter struct {
	mu       sync.Mutex
	w        io.Writer
	terminal io.Writer // the command's real stdout, for colour decisions.
}

func (sw *switchWriter) Write(p []byte) (int, error) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.w.Write(p)
}

func (sw *switchWriter) set(w io.Writer) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	sw.w = w
}

// watchable gives a command streams whose stdout --watch can redirect.
func watchable(s Streams) (Streams, *switchWriter) {
	sw := &switchWriter{w: s.Out, terminal: s.Out}
	return Streams{In: s.In, Out: sw, Err: s.Err}, sw
}

// withWatch adds -w/--watch to a command that answers from a live cluster, as kubectl's.
func withWatch(c *cobra.Command, s Streams, out *switchWriter, f *sourceFlags) {
	var on bool
	c.Flags().BoolVarP(&on, "watch", "w", false, "after printing, watch the cluster and print the answer again each time it changes (Ctrl-C stops)")
	run := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if !on {
			return run(cmd, args)
		}
		m, err := f.mode()
		if err != nil {
			return err
		}
		if m == sourceFiles {
			return errors.New("--watch follows a live cluster: files (-f) do not change; drop -f (or lay them over the cluster with --with-file)")
		}
		ctx, stop := signal.NotifyContext(cmp.Or(cmd.Context(), context.Background()), os.Interrupt, syscall.SIGTERM)
		defer stop()
		var last []byte
		answer := func() error {
			var buf bytes.Buffer
			out.set(&buf)
			err := run(cmd, args)
			out.set(s.Out)
			if err != nil {
				return err
			}
			if bytes.Equal(buf.Bytes(), last) {
				return nil
			}
			if last != nil {
				if _, err := io.WriteString(s.Out, "\n"); err != nil {
					return err
				}
			}
			last = bytes.Clone(buf.Bytes())
			_, err = s.Out.Write(buf.Bytes())
			return err
		}
		if err := answer(); err != nil {
			return err
		}
		changed := make(chan struct{}, 1)
		if err := watchCluster(ctx, s, f, f.last, changed, nil, "strata "+cmd.Name()+" --watch"); err != nil {
			return err
		}
		// A change between the first read and the watches: one more answer, printed only if it differs.
		if err := answer(); err != nil {
			return err
		}
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-changed:
			}
			if err := answer(); err != nil {
				// The cluster may be briefly unreachable: say so and keep watching.
				fmt.Fprintf(s.Err, "warning: strata %s --watch: %v; still watching\n", cmd.Name(), err)
			}
		}
	}
}
