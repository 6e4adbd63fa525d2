package policies

import (
	"fmt"

	"k8s.io/client-go/rest"
)

// Client rates. client-go paces every request of a rest.Config whose QPS
// is 0 at 5 per second with a burst of 10, all kinds and verbs together;
// the controller's writes alone are paced at Options.TargetQPS (20 by
// default) for targets plus Options.EventQPS (10) for Events, on top of
// policy status, EffectivePolicy records, access reviews and the leader
// election lease. At client-go's default the target pacing could never
// be reached: 2,000 routes took over eight minutes to settle. The
// defaults leave room for every pacer at its own default and for the
// unpaced policy status writes after a full run.
const (
	DefaultClientQPS   = 100
	DefaultClientBurst = 200
)

// ClientConfig is cfg (copied) with the client rates `strata controller`
// uses: qps and burst (0: the defaults above). It refuses rates that
// cannot carry the paced writes, so that a flag's typo does not make the
// controller silently slower than its own pacing.
func ClientConfig(cfg *rest.Config, qps float32, burst int, opts Options) (*rest.Config, error) {
	if qps == 0 {
		qps = DefaultClientQPS
	}
	if burst == 0 {
		burst = DefaultClientBurst
	}
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
