package cli

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMetricsFlags: the metrics server's flags give controller-runtime's
// options: HTTPS with the authentication and authorization filter on
// :8443 by default, plain HTTP on :8080 with --metrics-secure=false, and
// a certificate folder without its files refused.
func TestMetricsFlags(t *testing.T) {
	certDir := t.TempDir()
	for _, f := range []string{"tls.crt", "tls.key"} {
		if err := os.WriteFile(filepath.Join(certDir, f), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	defaults := metricsFlags{secure: true, certName: "tls.crt", keyName: "tls.key"}
	cases := []struct {
		name   string
		change func(*metricsFlags)
		addr   string
		secure bool
		http2  bool
		err    string
	}{
		{"defaults: HTTPS on :8443", func(*metricsFlags) {}, ":8443", true, false, ""},
		{"plain HTTP on :8080", func(m *metricsFlags) { m.secure = false }, ":8080", false, false, ""},
		{"plain HTTP on an address of one's own", func(m *metricsFlags) { m.secure, m.addr = false, ":9090" }, ":9090", false, false, ""},
		{"disabled", func(m *metricsFlags) { m.addr = "0" }, "0", true, false, ""},
		{"HTTP/2 allowed", func(m *metricsFlags) { m.http2 = true }, ":8443", true, true, ""},
		{"certificate folder", func(m *metricsFlags) { m.certDir = certDir }, ":8443", true, false, ""},
		{"certificate folder without the key", func(m *metricsFlags) { m.certDir, m.keyName = certDir, "key.pem" }, "", false, false, "--metrics-cert-dir"},
		{"certificate folder unused over plain HTTP", func(m *metricsFlags) { m.secure, m.certDir = false, "/nonexistent" }, ":8080", false, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := defaults
			tc.change(&m)
			o, err := m.options()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error naming %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.BindAddress != tc.addr || o.SecureServing != tc.secure || (o.FilterProvider != nil) != tc.secure {
				t.Errorf("bind %q secure %v filter %v, want %q %v %v", o.BindAddress, o.SecureServing, o.FilterProvider != nil, tc.addr, tc.secure, tc.secure)
			}
			if tc.secure && (o.CertDir != m.certDir || o.CertName != m.certName || o.KeyName != m.keyName) {
				t.Errorf("certificate %s/{%s,%s}, want %s/{%s,%s}", o.CertDir, o.CertName, o.KeyName, m.certDir, m.certName, m.keyName)
			}
			cfg := &tls.Config{NextProtos: []string{"h2"}}
			for _, f := range o.TLSOpts {
				f(cfg)
			}
			if h2 := len(cfg.NextProtos) > 0 && cfg.NextProtos[0] == "h2"; tc.secure && h2 != tc.http2 {
				t.Errorf("NextProtos %v, want HTTP/2 %v", cfg.NextProtos, tc.http2)
			}
		})
	}
}
