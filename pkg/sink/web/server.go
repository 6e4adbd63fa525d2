package web

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/query"
)

//go:embed assets
var assets embed.FS

// Server answers the pages and their JSON API from the World it holds;
// Set replaces it and tells the pages, which reload (Server-Sent Events
// on /api/events). Read-only.
type Server struct {
	world  atomic.Pointer[World]
	limits Limits
	mux    *http.ServeMux

	mu      sync.Mutex
	version int
	waiters []chan struct{}
}

// NewServer serves w with the given limits (DefaultLimits when zero).
func NewServer(w *World, lim Limits) *Server {
	if lim == (Limits{}) {
		lim = DefaultLimits
	}
	s := &Server{limits: lim, mux: http.NewServeMux()}
	s.world.Store(w)
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embed is part of the binary: it has the directory
	}
	s.mux.Handle("GET /", http.FileServerFS(static))
	s.mux.HandleFunc("GET /api/overview", s.overview)
	s.mux.HandleFunc("GET /api/graph", s.graph)
	s.mux.HandleFunc("GET /api/object", s.object)
	s.mux.HandleFunc("GET /api/policy", s.policy)
	s.mux.HandleFunc("GET /api/search", s.search)
	s.mux.HandleFunc("GET /api/events", s.events)
	return s
}

// Set replaces the world served, and tells every page open on an event
// stream to reload.
func (s *Server) Set(w *World) {
	s.world.Store(w)
	s.mu.Lock()
	s.version++
	for _, c := range s.waiters {
		close(c)
	}
	s.waiters = nil
	s.mu.Unlock()
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// Nothing a cluster's object says can load or run anything.
	w.Header().Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'")
	s.mux.ServeHTTP(w, r)
}

// reply writes v as JSON, or err as {"error": ...} with the status code.
func reply(w http.ResponseWriter, v any, code int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err != nil {
		w.WriteHeader(code)
		v = map[string]string{"error": err.Error()}
	}
	_ = json.NewEncoder(w).Encode(v) // an error: the client went away, nothing to tell
}

func (s *Server) overview(w http.ResponseWriter, r *http.Request) {
	reply(w, s.world.Load().Summarize(s.limits), 0, nil)
}

// graph is /api/graph?focus=KIND/NS/NAME&depth=N: the neighbourhood of
// an object (Neighbourhood), depth 2 by default, at most 4.
func (s *Server) graph(w http.ResponseWriter, r *http.Request) {
	world := s.world.Load()
	subj, err := world.Resolve(r.URL.Query().Get("focus"))
	if err != nil {
		reply(w, nil, http.StatusNotFound, fmt.Errorf("focus: %w", err))
		return
	}
	if subj.Policy != nil {
		reply(w, nil, http.StatusBadRequest, fmt.Errorf("focus: %s is a policy; the graph is centred on an object", PolicyString(subj.Policy)))
		return
	}
	depth := 2
	if d := r.URL.Query().Get("depth"); d != "" {
		if depth, err = strconv.Atoi(d); err != nil || depth < 0 || depth > 4 {
			reply(w, nil, http.StatusBadRequest, fmt.Errorf("depth %q: want 0 to 4", d))
			return
		}
	}
	reply(w, world.Neighbourhood(subj.Node, depth, s.limits), 0, nil)
}

// ObjectPage is an object's page: what `strata describe` says.
type ObjectPage struct {
	Ref         string             `json:"ref"`
	Description *query.Description `json:"description"`
	// Standings of the policies the description names, by PolicyString.
	Standings map[string]string `json:"standings"`
	// NotVisible are the World's: kinds whose policies the answer may
	// lack.
	NotVisible []string `json:"notVisible,omitempty"`
}

func (s *Server) object(w http.ResponseWriter, r *http.Request) {
	world := s.world.Load()
	subj, err := world.Resolve(r.URL.Query().Get("ref"))
	if err != nil {
		reply(w, nil, http.StatusNotFound, err)
		return
	}
	if subj.Policy != nil {
		reply(w, nil, http.StatusBadRequest, fmt.Errorf("%s is a policy: see /api/policy", PolicyString(subj.Policy)))
		return
	}
	d := query.Describe(world.Res, subj.Node)
	page := &ObjectPage{Ref: RefString(world.Res.Graph.Node(subj.Node).Ref), Description: d, Standings: map[string]string{}, NotVisible: world.NotVisible}
	for _, a := range d.Policies {
		if k := world.Res.KindOf(a.Policy.Group, a.Policy.Kind); k != nil {
			if p := query.FindPolicy(world.Res, k, a.Policy.Namespace, a.Policy.Name); p != nil {
				page.Standings[PolicyString(p)] = world.Standing(p)
			}
		}
	}
	reply(w, page, 0, nil)
}

// PolicyPage is a policy's page: where it is in force and what its
// deletion would change.
type PolicyPage struct {
	Ref         string                   `json:"ref"`
	Standing    string                   `json:"standing"`
	Description *query.PolicyDescription `json:"description"`
	Impact      *query.Impact            `json:"impact,omitempty"`
	// ImpactError says why the impact could not be computed.
	ImpactError string `json:"impactError,omitempty"`
}

func (s *Server) policy(w http.ResponseWriter, r *http.Request) {
	world := s.world.Load()
	subj, err := world.Resolve(r.URL.Query().Get("ref"))
	if err != nil {
		reply(w, nil, http.StatusNotFound, err)
		return
	}
	p := subj.Policy
	if p == nil {
		reply(w, nil, http.StatusBadRequest, fmt.Errorf("%s is not a policy: see /api/object", RefString(world.Res.Graph.Node(subj.Node).Ref)))
		return
	}
	page := &PolicyPage{Ref: PolicyString(p), Standing: world.Standing(p), Description: query.DescribePolicy(world.Res, p)}
	page.Impact, err = deletion(world, p)
	if err != nil {
		page.ImpactError = fmt.Sprintf("computing the effective policies without %s: %v", PolicyString(p), err)
	}
	reply(w, page, 0, nil)
}

// deletion is what deleting p changes (`strata impact --delete`), asked
// as the admission webhook asks it (query.Admit of a DELETE), which
// recomputes only the targets below p's; a policy without its object
// takes the long way (query.Without, then query.Compare).
func deletion(world *World, p *policykind.Policy) (*query.Impact, error) {
	if p.Object == nil {
		after, err := query.Without(world.Res, p)
		if err != nil {
			return nil, err
		}
		return query.Compare(world.Res, after, query.PolicyRefOf(p), query.ChangeDelete), nil
	}
	a, err := query.Admit(world.Res, query.Change{Operation: query.OpDelete, Old: p.Object}, query.AdmitOptions{})
	if err != nil {
		return nil, err
	}
	return a.Impact, nil
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	reply(w, s.world.Load().Search(r.URL.Query().Get("q")), 0, nil)
}

// events is a Server-Sent Events stream: one "reload" event each time
// Set replaces the world, so that an open page shows the new one.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprint(w, ": connected\n\n")
	flusher.Flush()
	for {
		s.mu.Lock()
		c := make(chan struct{})
		s.waiters = append(s.waiters, c)
		v := s.version
		s.mu.Unlock()
		select {
		case <-r.Context().Done():
			return
		case <-c:
			fmt.Fprintf(w, "event: reload\ndata: %d\n\n", v+1)
			flusher.Flush()
		}
	}
}
