package policies

import (
	"cmp"
	"fmt"

	"k8s.io/client-go/rest"
)

// Client rates. client-go's default (5 per second, burst 10, for all
// requests) is below the controller's own write pacing; these defaults
// leave room for every pacer at its default and for the unpaced policy
// status writes after a full run.
const (
	DefaultClientQPS   = 100
	DefaultClientBurst = 200
)

// ClientConfig is cfg (copied) with the client rates `strata controller`
// uses: qps and burst (0: the defaults above). It refuses rates that
// cannot carry the paced writes.
func ClientConfig(cfg *rest.Config, qps float32, burst int, opts Options) (*rest.Config, error) {
	qps, burst = cmp.Or(qps, DefaultClientQPS), cmp.Or(burst, DefaultClientBurst)
	opts = opts.paced()
	target, events := opts.TargetQPS, opts.EventQPS
	if need := target + events; float64(qps) < need {
		return nil, fmt.Errorf("--kube-api-qps %g is below the paced writes it must carry: --target-qps %g plus --event-qps %g; raise it to at least %g", qps, target, events, need)
	}
	if burst < int(qps) {
		return nil, fmt.Errorf("--kube-api-burst %d is below --kube-api-qps %g", burst, qps)
	}
	out := rest.CopyConfig(cfg)
	out.QPS, out.Burst = qps, burst
	return out, nil
}
