package routing

import (
	"fmt"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
)

// defaultPorts are the ports a URL without one is sent to; tls:// is
// HTTPS's port, the one TLS passthrough listeners most often share.
var defaultPorts = map[string]int32{"http": 80, "https": 443, "tls": 443}

// Scheme is what a URL scheme simulates: the listener protocol that
// serves it, the route kinds that can handle it, and whether it is a
// connection rather than an HTTP request.
type Scheme struct {
	Protocol   gwv1.ProtocolType
	Kinds      []schema.GroupKind
	Connection bool
}

// Schemes are the URL schemes simulate reads: http and https requests,
// and tls (by SNI), tcp and udp connections.
var Schemes = map[string]Scheme{
	"http":  {Protocol: gwv1.HTTPProtocolType, Kinds: []schema.GroupKind{hierarchy.HTTPRouteKind, hierarchy.GRPCRouteKind}},
	"https": {Protocol: gwv1.HTTPSProtocolType, Kinds: []schema.GroupKind{hierarchy.HTTPRouteKind, hierarchy.GRPCRouteKind}},
	// TLSRoute: "you could choose to use a TCPRoute with a TLS listener".
	"tls": {Protocol: gwv1.TLSProtocolType, Kinds: []schema.GroupKind{hierarchy.TLSRouteKind, hierarchy.TCPRouteKind}, Connection: true},
	"tcp": {Protocol: gwv1.TCPProtocolType, Kinds: []schema.GroupKind{hierarchy.TCPRouteKind}, Connection: true},
	"udp": {Protocol: gwv1.UDPProtocolType, Kinds: []schema.GroupKind{hierarchy.UDPRouteKind}, Connection: true},
}

// NewRequest reads a request as a command line gives it: a method (GET
// by default), an absolute http or https URL, and headers written "Name:
// value" (curl's -H); a Host header replaces the URL's host. A
// tls://host[:port] (the host is the SNI), tcp://[host]:port or
// udp://[host]:port URL is a connection instead, without method or
// headers.
func NewRequest(method, rawURL string, headers []string) (Request, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return Request{}, fmt.Errorf("URL %q: %w", rawURL, err)
	}
	scheme := strings.ToLower(u.Scheme)
	sc, ok := Schemes[scheme]
	if !ok || u.Host == "" {
		return Request{}, fmt.Errorf("URL %q: want an absolute http:// or https:// URL, e.g. http://shop.example.com/cart, or a tls://, tcp:// or udp:// one, e.g. tls://db.example.com:5432", rawURL)
	}
	if sc.Connection {
		return newConnection(scheme, method, u, rawURL, headers)
	}
	if method == "" {
		method = http.MethodGet
	}
	r := Request{Method: strings.ToUpper(method), URL: rawURL, Scheme: scheme, Port: defaultPorts[scheme], Path: u.EscapedPath(), Query: u.Query()}
	if r.Path == "" {
		r.Path = "/"
	}
	if len(r.Query) == 0 {
		r.Query = nil
	}
	host := u.Hostname()
	if r.Port, err = port(u, rawURL, r.Port); err != nil {
		return Request{}, err
	}
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return Request{}, fmt.Errorf("header %q: want Name: value", h)
		}
		if r.Headers == nil {
			r.Headers = http.Header{}
		}
		r.Headers.Add(name, strings.TrimSpace(value))
	}
	if hh := r.Headers.Get("Host"); hh != "" {
		host = hh
		if h, _, err := net.SplitHostPort(hh); err == nil {
			host = h
		}
	}
	r.Host = strings.ToLower(strings.TrimSuffix(host, "."))
	if r.Host == "" {
		return Request{}, fmt.Errorf("URL %q: no host", rawURL)
	}
	return r, nil
}

// newConnection is NewRequest for a tls, tcp or udp URL.
func newConnection(scheme, method string, u *url.URL, rawURL string, headers []string) (Request, error) {
	if method != "" {
		return Request{}, fmt.Errorf("%s: a %s:// URL is a connection, not an HTTP request: give no method", method, scheme)
	}
	if len(headers) > 0 {
		return Request{}, fmt.Errorf("-H: a %s:// URL is a connection, not an HTTP request: it has no headers", scheme)
	}
	if p := u.EscapedPath(); p != "" && p != "/" || u.RawQuery != "" {
		return Request{}, fmt.Errorf("URL %q: a %s:// URL is a connection: want %s://HOST:PORT, without a path", rawURL, scheme, scheme)
	}
	r := Request{URL: rawURL, Scheme: scheme, Host: strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))}
	if _, ok := defaultPorts[scheme]; !ok && u.Port() == "" {
		return Request{}, fmt.Errorf("URL %q: want %s://HOST:PORT: a %s connection has no default port", rawURL, scheme, strings.ToUpper(scheme))
	}
	var err error
	if r.Port, err = port(u, rawURL, defaultPorts[scheme]); err != nil {
		return Request{}, err
	}
	if scheme == "tls" && r.Host == "" {
		return Request{}, fmt.Errorf("URL %q: want tls://HOST[:PORT]: the host is the SNI that listeners and TLSRoutes match", rawURL)
	}
	return r, nil
}

// port is the URL's port, def when it has none.
func port(u *url.URL, rawURL string, def int32) (int32, error) {
	p := u.Port()
	if p == "" {
		return def, nil
	}
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("URL %q: port %q: want 1 to 65535", rawURL, p)
	}
	return int32(n), nil
}

// Connection reports whether the request is a TLS, TCP or UDP connection
// rather than an HTTP request.
func (r *Request) Connection() bool { return Schemes[r.Scheme].Connection }

// what names the request in messages: "HTTP requests for shop.example.com".
func (r *Request) what() string {
	s := strings.ToUpper(r.Scheme) + " requests"
	if r.Connection() {
		s = strings.ToUpper(r.Scheme) + " connections"
	}
	if r.Host != "" && r.Scheme != "tcp" && r.Scheme != "udp" {
		s += " for " + r.Host
	}
	return s
}

// header is the values of a request header, by name in any case
// (RFC 7230: header names are case-insensitive).
func (r *Request) header(name string) []string {
	return r.Headers[textproto.CanonicalMIMEHeaderKey(name)]
}
