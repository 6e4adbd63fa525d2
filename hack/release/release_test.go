package release

import (
	"os"
	"slices"
	"testing"

	"github.com/goreleaser/goreleaser/v2/pkg/config"
)

// The recipe parses under goreleaser's strict loader (an unknown key, the
// usual mistake, is an error), and builds what RELEASING.md promises:
// strata and kubectl-strata, static, for linux/darwin x amd64/arm64,
// each in its own archive, with sha256 checksums and a krew manifest for
// kubectl-strata.
func TestRecipe(t *testing.T) {
	f, err := os.Open("../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := config.LoadReader(f)
	if err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if p.Version != 2 || p.ProjectName != "strata" {
		t.Errorf("version %d project %q", p.Version, p.ProjectName)
	}
	binaries := map[string]string{}
	for _, b := range p.Builds {
		binaries[b.ID] = b.Binary
		if b.Main != "./cmd/strata" || !slices.Contains(b.Env, "CGO_ENABLED=0") || !slices.Contains(b.Flags, "-trimpath") {
			t.Errorf("build %s: main %q env %v flags %v: want ./cmd/strata, static, -trimpath", b.ID, b.Main, b.Env, b.Flags)
		}
		if !slices.Equal(b.Goos, []string{"linux", "darwin"}) || !slices.Equal(b.Goarch, []string{"amd64", "arm64"}) {
			t.Errorf("build %s: %v x %v", b.ID, b.Goos, b.Goarch)
		}
		if b.ModTimestamp == "" {
			t.Errorf("build %s: no mod_timestamp: archives would not be reproducible", b.ID)
		}
	}
	if want := map[string]string{"strata": "strata", "kubectl-strata": "kubectl-strata"}; !mapsEqual(binaries, want) {
		t.Errorf("builds %v, want %v", binaries, want)
	}
	archived := map[string]bool{}
	for _, a := range p.Archives {
		for _, id := range a.IDs {
			archived[id] = true
		}
	}
	if !archived["strata"] || !archived["kubectl-strata"] {
		t.Errorf("archives cover %v", archived)
	}
	if p.Checksum.Algorithm != "sha256" || p.Checksum.Disable {
		t.Errorf("checksum %+v", p.Checksum)
	}
	if len(p.Krews) != 1 || p.Krews[0].Name != "strata" || !slices.Equal(p.Krews[0].IDs, []string{"kubectl-strata"}) || p.Krews[0].ShortDescription == "" {
		t.Errorf("krews %+v", p.Krews)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
