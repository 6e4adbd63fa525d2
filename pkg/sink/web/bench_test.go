package web_test

import (
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/strata-dev/strata/pkg/sink/web"
)

// BenchmarkPages measures what each page asks of the server on issue
// 11's world (1,000 Gateways, 20,000 HTTPRoutes, 5,000 policies): the
// engine runs once, before the timer; NewWorld once per result.
func BenchmarkPages(b *testing.B) {
	w := synthetic(b)
	gw, err := w.Resolve(w.Summarize(web.DefaultLimits).Gateways[0].Ref)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("NewWorld", func(b *testing.B) {
		for b.Loop() {
			web.NewWorld(w.Res)
		}
	})
	b.Run("Summarize", func(b *testing.B) {
		for b.Loop() {
			w.Summarize(web.DefaultLimits)
		}
	})
	b.Run("Neighbourhood", func(b *testing.B) {
		for b.Loop() {
			w.Neighbourhood(gw.Node, 3, web.DefaultLimits)
		}
	})
	srv := web.NewServer(w, web.Limits{})
	for _, page := range []string{"object?ref=" + url.QueryEscape(web.RefString(w.Res.Graph.Node(gw.Node).Ref)), "policy?ref=" + url.QueryEscape(web.PolicyString(w.Res.Policies[0]))} {
		b.Run(page, func(b *testing.B) {
			for b.Loop() {
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, httptest.NewRequest("GET", "/api/"+page, nil))
				if rec.Code != 200 {
					b.Fatalf("%d: %s", rec.Code, rec.Body)
				}
			}
		})
	}
	b.Run("Search", func(b *testing.B) {
		for b.Loop() {
			w.Search("kind:httproute route-0001")
		}
	})
}
