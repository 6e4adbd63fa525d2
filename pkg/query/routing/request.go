package routing

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
)

// defaultPorts are the ports a URL without one is sent to.
var defaultPorts = map[string]int32{"http": 80, "https": 443}

// NewRequest reads a request as a command line gives it: a method, an
// absolute http or https URL, and headers written "Name: value" (curl's
// -H). A Host header replaces the URL's host for matching, as on the wire.
func NewRequest(method, rawURL string, headers []string) (Request, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return Request{}, fmt.Errorf("URL %q: %w", rawURL, err)
	}
	scheme := strings.ToLower(u.Scheme)
	def, ok := defaultPorts[scheme]
	if !ok || u.Host == "" {
		return Request{}, fmt.Errorf("URL %q: want an absolute http:// or https:// URL, e.g. http://shop.example.com/cart", rawURL)
	}
	r := Request{Method: strings.ToUpper(method), URL: rawURL, Scheme: scheme, Port: def, Path: u.EscapedPath(), Query: u.Query()}
	if r.Method == "" {
		return Request{}, errors.New("empty method: want GET, POST or another HTTP method")
	}
	if r.Path == "" {
		r.Path = "/"
	}
	if len(r.Query) == 0 {
		r.Query = nil
	}
	host := u.Hostname()
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return Request{}, fmt.Errorf("URL %q: port %q: want 1 to 65535", rawURL, p)
		}
		r.Port = int32(n)
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

// header is the values of a request header, by name in any case
// (RFC 7230: header names are case-insensitive).
func (r *Request) header(name string) []string {
	return r.Headers[textproto.CanonicalMIMEHeaderKey(name)]
}
