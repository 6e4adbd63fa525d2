package policies

import (
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

// TestClientConfig: the defaults replace client-go's 5 per second; rates
// below the paced writes, or a burst below the rate, are refused with the
// flag to raise.
func TestClientConfig(t *testing.T) {
	for _, tc := range []struct {
		name       string
		qps        float32
		burst      int
		opts       Options
		wantQPS    float32
		wantBurst  int
		wantErrHas string
	}{
		{name: "defaults", wantQPS: DefaultClientQPS, wantBurst: DefaultClientBurst},
		{name: "set", qps: 300, burst: 600, wantQPS: 300, wantBurst: 600},
		{name: "exactly the paced writes", qps: 30, burst: 30, wantQPS: 30, wantBurst: 30},
		{name: "below the default paces", qps: 29, burst: 100, wantErrHas: "--kube-api-qps 29 is below"},
		{name: "below a raised target pace", qps: 100, burst: 200, opts: Options{TargetQPS: 200}, wantErrHas: "at least 210"},
		{name: "burst below the rate", qps: 100, burst: 50, wantErrHas: "--kube-api-burst 50"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &rest.Config{Host: "https://example"}
			got, err := ClientConfig(in, tc.qps, tc.burst, tc.opts)
			if tc.wantErrHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrHas) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErrHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.QPS != tc.wantQPS || got.Burst != tc.wantBurst {
				t.Errorf("QPS %v burst %d, want %v %d", got.QPS, got.Burst, tc.wantQPS, tc.wantBurst)
			}
			if in.QPS != 0 || got == in {
				t.Errorf("the given config was changed, not copied")
			}
		})
	}
}
