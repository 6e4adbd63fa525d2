package routing

import (
	"fmt"
	"strings"
	"testing"

	"github.com/strata-dev/strata/internal/enginetest"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// l4 has a listener per connection protocol: TLS passed through by SNI
// (a wildcard and an exact hostname on one port), TLS terminated, TCP,
// UDP, and an HTTPS one on the passthrough port.
const l4 = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gc}
spec: {controllerName: example.com/gc}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: gc
  listeners:
  - {name: www, protocol: HTTPS, port: 443, hostname: www.example.com, tls: {certificateRefs: [{name: c}]}, allowedRoutes: {namespaces: {from: All}}}
  - {name: pass, protocol: TLS, port: 443, hostname: "*.example.com", tls: {mode: Passthrough}, allowedRoutes: {namespaces: {from: All}}}
  - {name: pass-exact, protocol: TLS, port: 443, hostname: db.example.com, tls: {mode: Passthrough}, allowedRoutes: {namespaces: {from: All}}}
  - {name: term, protocol: TLS, port: 8443, tls: {mode: Terminate, certificateRefs: [{name: c}]}, allowedRoutes: {namespaces: {from: All}}}
  - {name: tcp, protocol: TCP, port: 5432, allowedRoutes: {namespaces: {from: All}}}
  - {name: udp, protocol: UDP, port: 53, allowedRoutes: {namespaces: {from: All}}}
`

// l4Route is a route of kind on listener section, created at minute min,
// with the given hostnames (TLSRoute only; "" for none) and one rule to
// Service backend.
func l4Route(kind, name, section string, min int, hostnames, backend string) string {
	hs := ""
	if hostnames != "" {
		hs = "\n  hostnames: " + hostnames
	}
	return fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: %s
metadata: {name: %s, namespace: app, creationTimestamp: "2026-01-01T10:%02d:00Z"}
spec:
  parentRefs: [{name: gw, namespace: infra, sectionName: %s}]%s
  rules: [{backendRefs: [{name: %s, port: 443}]}]
`, kind, name, min, section, hs, backend)
}

func connect(t *testing.T, docs []string, url string) (*Trace, *topology.Graph) {
	t.Helper()
	res := enginetest.RunYAML(t, append([]string{l4}, docs...)...)
	req, err := NewRequest("", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Route(res.Graph, req, "")
	if err != nil {
		t.Fatal(err)
	}
	return tr, res.Graph
}

// Listeners of connections: by protocol and port, and for TLS by the
// SNI, the most specific hostname first (as for HTTP); TCP and UDP match
// no hostname.
func TestConnectionListener(t *testing.T) {
	for _, c := range []struct {
		url, want, reason, failure string
	}{
		{"tls://a.example.com", "Gateway infra/gw#pass", "accepts TLS on port 443 for *.example.com (Passthrough)", ""},
		{"tls://db.example.com:443", "Gateway infra/gw#pass-exact", "accepts TLS on port 443 for db.example.com (Passthrough)", ""},
		{"tls://anything.example.net:8443", "Gateway infra/gw#term", "accepts TLS on port 8443 for any host (Terminate)", ""},
		{"tcp://db.example.com:5432", "Gateway infra/gw#tcp", "accepts TCP on port 5432", ""},
		{"tcp://:5432", "Gateway infra/gw#tcp", "accepts TCP on port 5432", ""},
		{"udp://10.0.0.1:53", "Gateway infra/gw#udp", "accepts UDP on port 53", ""},
		{"tls://www.example.net", "", "", "no listener of any Gateway accepts TLS connections for www.example.net on port 443"},
		{"udp://:5432", "", "", "no listener of any Gateway accepts UDP connections on port 5432"},
	} {
		t.Run(c.url, func(t *testing.T) {
			tr, g := connect(t, nil, c.url)
			if c.failure != "" {
				if tr.Failure != c.failure {
					t.Errorf("failure %q, want %q", tr.Failure, c.failure)
				}
				return
			}
			if tr.Listener == topology.None {
				t.Fatalf("no listener: %s", tr.Failure)
			}
			if got := g.Node(tr.Listener).Ref.String(); got != c.want {
				t.Errorf("listener %s, want %s", got, c.want)
			}
			for _, s := range tr.Steps {
				if s.Verdict == Chosen && s.Stage == StageListener && s.Reason != c.reason {
					t.Errorf("reason %q, want %q", s.Reason, c.reason)
				}
				if s.Object.SectionName == "www" && s.Reason != "protocol HTTPS does not serve "+strings.SplitN(c.url, ":", 2)[0]+":// connections" {
					t.Errorf("www: %q", s.Reason)
				}
			}
		})
	}
}

// TLSRoutes: hostnames matched against the SNI with HTTPRoute's
// precedence (TLSRouteSpec.hostnames, intersected with the listener's);
// TCPRoutes on a TLS listener only when it terminates ("SSL passthrough
// is only supported by TLSRoute"); TCP and UDP routes serve every
// connection, the oldest first.
func TestConnectionRoutes(t *testing.T) {
	docs := []string{
		l4Route("TLSRoute", "wild", "pass", 0, `["*.example.com"]`, "proxy"),
		l4Route("TLSRoute", "deep", "pass", 5, `["*.shop.example.com"]`, "shop"),
		l4Route("TLSRoute", "exact", "pass", 9, `[pay.shop.example.com, pay.example.net]`, "pay"),
		l4Route("TLSRoute", "twin", "pass", 1, `["*.example.com"]`, "proxy"),
		l4Route("TCPRoute", "raw", "pass", 0, "", "proxy"),
		l4Route("TCPRoute", "term", "term", 0, "", "backend"),
		l4Route("TCPRoute", "pg-old", "tcp", 0, "", "pg"),
		l4Route("TCPRoute", "pg-new", "tcp", 3, "", "pg2"),
		l4Route("UDPRoute", "dns", "udp", 0, "", "dns"),
		l4Route("HTTPRoute", "web", "www", 0, `[www.example.com]`, "web"),
	}
	for _, c := range []struct {
		url, rule, decidedBy, failure string
	}{
		{"tls://pay.shop.example.com", "TLSRoute app/exact#rule-0", "non-wildcard hostname", ""},
		{"tls://a.shop.example.com", "TLSRoute app/deep#rule-0", "hostname", ""},
		{"tls://a.example.com", "TLSRoute app/wild#rule-0", "oldest route", ""},
		{"tls://x.example.com:8443", "TCPRoute app/term#rule-0", "", ""},
		{"tcp://:5432", "TCPRoute app/pg-old#rule-0", "oldest route", ""},
		{"udp://:53", "UDPRoute app/dns#rule-0", "", ""},
		{"tls://db.example.com", "", "", "none of the 0 routes attached to Gateway infra/gw#pass-exact serves TLS connections for db.example.com: the Gateway refuses the connection"},
	} {
		t.Run(c.url, func(t *testing.T) {
			tr, g := connect(t, docs, c.url)
			if tr.Failure != c.failure {
				t.Fatalf("failure %q, want %q\nsteps %+v", tr.Failure, c.failure, tr.Steps)
			}
			if c.failure != "" {
				return
			}
			if got := g.Node(tr.Rule).Ref.String(); got != c.rule {
				t.Errorf("rule %s, want %s\nsteps %+v", got, c.rule, tr.Steps)
			}
			for _, s := range tr.Steps {
				if s.Verdict == Outranked && s.DecidedBy != c.decidedBy {
					t.Errorf("%s outranked by %q, want %q", s.Object, s.DecidedBy, c.decidedBy)
				}
				if s.Stage == StageRoute && s.Object.Kind == "HTTPRoute" {
					t.Errorf("an HTTPRoute considered for a connection: %+v", s)
				}
			}
		})
	}
	tr, _ := connect(t, docs, "tls://a.example.com")
	want := map[string]string{
		"TCPRoute app/raw":   `NoMatch: a TCPRoute cannot serve a TLS listener in Passthrough mode (TLSModePassthrough: "SSL passthrough is only supported by TLSRoute")`,
		"TLSRoute app/exact": "NoMatch: hostname a.example.com matches none of its hostnames pay.shop.example.com",
		"TLSRoute app/wild":  "Passed: hostname *.example.com matches a.example.com",
	}
	for _, s := range tr.Steps {
		if w, ok := want[s.Object.String()]; ok && s.Verdict+": "+s.Reason != w {
			t.Errorf("%s: %s: %s, want %s", s.Object, s.Verdict, s.Reason, w)
		}
	}
	tr, _ = connect(t, docs, "tcp://:5432")
	for _, s := range tr.Steps {
		if s.Object.String() == "TCPRoute app/pg-new" && s.Reason != "a TCPRoute has no hostnames: it serves every connection its listener accepts" {
			t.Errorf("pg-new: %q", s.Reason)
		}
	}
}

// NewRequest reads connections: no method, no header, no path; tls's
// port is 443 by default, tcp and udp need one.
func TestNewConnection(t *testing.T) {
	r, err := NewRequest("", "TLS://DB.Example.com", nil)
	if err != nil || r.Scheme != "tls" || r.Host != "db.example.com" || r.Port != 443 || r.Method != "" || r.Path != "" || !r.Connection() {
		t.Errorf("%+v %v", r, err)
	}
	if r, err := NewRequest("", "http://a.example.com", nil); err != nil || r.Method != "GET" {
		t.Errorf("an HTTP request without a method is a GET: %+v %v", r, err)
	}
	for _, c := range []struct{ method, url, header, want string }{
		{"GET", "tls://a.example.com", "", "GET: a tls:// URL is a connection, not an HTTP request: give no method"},
		{"", "tcp://a.example.com:1", "x: 1", "-H: a tcp:// URL is a connection, not an HTTP request: it has no headers"},
		{"", "tcp://a.example.com", "", `URL "tcp://a.example.com": want tcp://HOST:PORT: a TCP connection has no default port`},
		{"", "udp://a.example.com:0", "", `port "0"`},
		{"", "tls://a.example.com/x", "", "want tls://HOST:PORT, without a path"},
		{"", "tls://:443", "", "want tls://HOST[:PORT]: the host is the SNI"},
	} {
		var hs []string
		if c.header != "" {
			hs = []string{c.header}
		}
		if _, err := NewRequest(c.method, c.url, hs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want %q", c.method, c.url, err, c.want)
		}
	}
}
