package web_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/strata-dev/strata/pkg/sink/web"
)

// chromium is the browser the tests drive: STRATA_CHROMIUM, else
// Debian's /usr/bin/chromium, which `go run ./hack/test` installs. A
// missing browser fails the test, with what to install: a web view no
// browser ever loaded is not tested.
func chromium(t *testing.T) string {
	t.Helper()
	p := os.Getenv("STRATA_CHROMIUM")
	if p == "" {
		p = "/usr/bin/chromium"
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no Chromium for the browser tests (%v): install it with apt-get install chromium (go run ./hack/test does, as root), or set STRATA_CHROMIUM=/path/to/chromium", err)
	}
	return p
}

// browse starts a headless Chromium with a 1280x800 window on a server
// of w, and returns a chromedp context and the server's URL.
func browse(t *testing.T, w *web.World) (context.Context, string) {
	t.Helper()
	ctx, base, _ := browseServer(t, w)
	return ctx, base
}

// browseServer is browse, and the server, for tests that Set a new world.
func browseServer(t *testing.T, w *web.World) (context.Context, string, *web.Server) {
	t.Helper()
	exe := chromium(t)
	ws := web.NewServer(w, web.Limits{})
	srv := httptest.NewServer(ws)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.WindowSize(1280, 800),
		chromedp.NoSandbox, // tests run as root in containers
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		srv.CloseClientConnections()
		srv.Close()
	})
	return ctx, srv.URL, ws
}

// do runs steps, failing the test with what they were for.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// get runs one action and returns its value.
func get[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// text is the visible text of the first element sel matches.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return get(t, ctx, chromedp.Text(chromedp.CSS(sel)))
}

// TestBrowserParable walks examples/parable as a user would: the route
// baker's page, the provenance of its retry attempts, then a click
// through to the RetryPolicy that set them.
func TestBrowserParable(t *testing.T) {
	ctx, base := browse(t, parable(t))
	const attempts = `section[aria-label="RetryPolicy"] tr[data-field="/attempts"]`
	do(t, ctx, "open HTTPRoute baker/baker",
		chromedp.Navigate(base+"/#/object/"+url.PathEscape("HTTPRoute/baker/baker")),
		chromedp.WaitVisible(chromedp.CSS(attempts)),
		chromedp.WaitVisible(chromedp.CSS(`svg.graph g.node.focus`)),
	)
	h1, value, setBy := text(t, ctx, "h1"), text(t, ctx, attempts+" td.value"), text(t, ctx, attempts+" td.setby")
	if h1 != "HTTPRoute baker/baker" || value != "3" || setBy != "baker/baker-retries" {
		t.Errorf("route page: heading %q, /attempts %q set by %q; want HTTPRoute baker/baker, 3, baker/baker-retries", h1, value, setBy)
	}
	screenshot(t, ctx)

	do(t, ctx, "click through to RetryPolicy baker/baker-retries",
		chromedp.Click(chromedp.CSS(attempts+" td.setby a")),
		chromedp.WaitVisible(chromedp.CSS(`#blast`)),
	)
	h1, standing, blast := text(t, ctx, "h1"), text(t, ctx, "h1 .badge"), text(t, ctx, "#blast")
	if !strings.HasPrefix(h1, "RetryPolicy baker/baker-retries") || standing != "Enforced" {
		t.Errorf("policy page: heading %q, standing %q; want RetryPolicy baker/baker-retries, Enforced", h1, standing)
	}
	if !strings.HasPrefix(blast, "Deleting it changes ") || strings.HasPrefix(blast, "Deleting it changes 0 ") {
		t.Errorf("policy page: blast radius %q, want the targets its deletion changes", blast)
	}
}

// screenshot saves the viewport (1280x800) as the test's artifact (go
// test -artifacts) and, with -update, as docs/img/web-view.png, which
// the README shows.
func screenshot(t *testing.T, ctx context.Context) {
	t.Helper()
	png := get(t, ctx, chromedp.CaptureScreenshot())
	dirs := []string{t.ArtifactDir()}
	if *update {
		dirs = append(dirs, filepath.Join("..", "..", "..", "docs", "img"))
	}
	for _, d := range dirs {
		if err := os.WriteFile(filepath.Join(d, "web-view.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// unlabelled lists the controls (inputs, buttons, links, focusable SVG
// nodes) that have no accessible name: no aria-label, no label, no text.
const unlabelled = `(() => {
  const out = [];
  for (const e of document.querySelectorAll('input, button, select, textarea, a[href], [tabindex]')) {
    if (e.tabIndex < 0) continue;
    const byLabel = e.id && document.querySelector('label[for="' + e.id + '"]');
    const name = e.getAttribute('aria-label') || (byLabel && byLabel.textContent.trim()) || (e.tagName !== 'INPUT' && e.textContent.trim());
    if (!name) out.push(e.outerHTML.slice(0, 80));
  }
  return out;
})()`

// TestBrowserAccessible: the landmarks are there, every control has a
// name, and the keyboard alone reaches the search and the graph's nodes
// and opens a node with Enter.
func TestBrowserAccessible(t *testing.T) {
	ctx, base := browse(t, parable(t))
	do(t, ctx, "open the overview",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS(`svg.graph g.node`)),
	)
	landmarks := get(t, ctx, chromedp.Evaluate[[]string](`['header', 'nav', 'main', '[role=search]'].filter(s => !document.querySelector(s))`))
	bad := get(t, ctx, chromedp.Evaluate[[]string](unlabelled))
	if len(landmarks) > 0 {
		t.Errorf("missing landmarks: %v", landmarks)
	}
	if len(bad) > 0 {
		t.Errorf("controls without an accessible name: %v", bad)
	}
	// Tab from the top of the page until a node of the graph has the
	// focus, noting whether the search field was on the way.
	var sawSearch bool
	var active string
	for i := 0; ; i++ {
		if i == 40 {
			t.Fatalf("40 Tabs never reached a node of the graph (last focus: %s)", active)
		}
		do(t, ctx, "Tab", chromedp.KeyEvent(kb.Tab))
		active = get(t, ctx, chromedp.Evaluate[string](`(document.activeElement.id || '') + '|' + (document.activeElement.getAttribute('class') || '')`))
		if strings.HasPrefix(active, "search|") {
			sawSearch = true
		}
		if strings.Contains(active, "node") {
			break
		}
	}
	if !sawSearch {
		t.Error("Tab never reached the search field before the graph")
	}
	do(t, ctx, "Enter on a node",
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitReady(chromedp.CSS(`#page[data-route^="#/object/"]`)),
	)
	hash, h1 := get(t, ctx, chromedp.Evaluate[string](`location.hash`)), text(t, ctx, "h1")
	if !strings.HasPrefix(hash, "#/object/") || h1 != "GatewayClass cupcakes" {
		t.Errorf("Enter on the first node went to %s (%q), want the object page of GatewayClass cupcakes", hash, h1)
	}
	// Zoom and pan by keyboard: + narrows the viewBox, an arrow moves it.
	viewBox := func() []float64 {
		return get(t, ctx, chromedp.Evaluate[[]float64](`document.querySelector('svg.graph').viewBox.baseVal && [document.querySelector('svg.graph').viewBox.baseVal.x, document.querySelector('svg.graph').viewBox.baseVal.width]`))
	}
	do(t, ctx, "focus the graph", chromedp.Focus(chromedp.CSS(`svg.graph`)))
	before := viewBox()
	do(t, ctx, "+", chromedp.KeyEvent("+"))
	zoomed := viewBox()
	do(t, ctx, "ArrowRight", chromedp.KeyEvent(kb.ArrowRight))
	panned := viewBox()
	if !(zoomed[1] < before[1]) || !(panned[0] > zoomed[0]) {
		t.Errorf("viewBox x, width: %v, after + %v, after ArrowRight %v; want + to narrow it and ArrowRight to move it right", before, zoomed, panned)
	}
	// The search, by keyboard: type in the field, Enter.
	do(t, ctx, "search",
		chromedp.Focus(chromedp.CSS(`#search`)),
		chromedp.SendKeys(chromedp.CSS(`#search`), "kind:retrypolicy ns:baker"+kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`#results a[href="#/policy/`+url.PathEscape("RetryPolicy/baker/baker-retries")+`"]`)),
	)
	found := text(t, ctx, "#found")
	if found != "1 found." {
		t.Errorf("search says %q, want 1 found.", found)
	}
}

// TestBrowserLarge: the overview of 1,000 Gateways and 20,000 routes
// renders without drawing them all.
func TestBrowserLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("the 20,000-route world takes seconds to compute")
	}
	ctx, base := browse(t, synthetic(t))
	do(t, ctx, "open the overview",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS(`svg.graph g.node`)),
	)
	boxes := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('svg.graph g.node').length`))
	rows := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('#main table')[1].tBodies[0].rows.length`))
	caption := get(t, ctx, chromedp.Evaluate[string](`document.querySelectorAll('#main table')[1].caption.textContent`))
	if boxes == 0 || boxes > web.DefaultLimits.Nodes {
		t.Errorf("overview draws %d boxes, want some and at most %d", boxes, web.DefaultLimits.Nodes)
	}
	if want := fmt.Sprintf("The first %d; %d more: use the search.", rows, 1000-rows); rows >= 1000 || caption != want {
		t.Errorf("Gateways table: %d rows, caption %q; want a capped list, %q", rows, caption, want)
	}
}

// TestBrowserLive: what the reader may not read is named on the pages,
// and a new world (a watch saw a change) reloads the open page through
// the event stream.
func TestBrowserLive(t *testing.T) {
	w := parable(t)
	w.Source, w.Live, w.NotVisible = "the cluster of the kubeconfig", true, []string{"RetryPolicy.policies.cupcakes.example (forbidden)"}
	ctx, base, srv := browseServer(t, w)
	do(t, ctx, "open the overview",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#not-visible`)),
	)
	if got, want := text(t, ctx, "#not-visible"), "Not visible to you (the answers may be incomplete): RetryPolicy.policies.cupcakes.example (forbidden)"; got != want {
		t.Errorf("notice %q, want %q", got, want)
	}
	// The page has subscribed once the stream said it is connected; wait
	// for that rather than for time to pass.
	do(t, ctx, "wait for the event stream", chromedp.Poll[chromedp.Void](`window.strataEvents && window.strataEvents.readyState === 1`, chromedp.WithPollingTimeout(0)))
	next := parable(t)
	next.Source, next.Live = "the cluster, read again", true
	srv.Set(next)
	do(t, ctx, "reload", chromedp.WaitVisible(chromedp.CSS(`#source[data-source="the cluster, read again"]`)))
}
