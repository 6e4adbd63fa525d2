package main

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// The image is built from the repository, twice: same commit, same
// digest; and what it holds is what the manifests expect: /strata as the
// entrypoint, a non-root user, a static binary of the platform asked for.
// One platform, the host's, keeps the test's cost to one build of strata
// (-trimpath and CGO off: it shares no compiled package with go test's);
// TestImageConfig covers other platforms without compiling.
func TestImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the strata binary")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	dir := t.TempDir()
	machine, ok := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[runtime.GOARCH]
	if !ok {
		t.Skipf("no ELF machine known for %s", runtime.GOARCH)
	}
	o := options{platforms: "linux/" + runtime.GOARCH, repo: repo, tag: "example.com/strata:test",
		out: filepath.Join(dir, "a"), tar: filepath.Join(dir, "a.tar")}
	a, err := build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	o.out, o.tar = filepath.Join(dir, "b"), ""
	b, err := build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if a.index != b.index || a.images[0].digest != b.images[0].digest {
		t.Errorf("two builds of one commit differ: %s %s, %s %s", a.index, a.images[0].digest, b.index, b.images[0].digest)
	}

	lp, err := layout.FromPath(a.layout)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := lp.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	outer, err := idx.IndexManifest()
	if err != nil || len(outer.Manifests) != 1 || outer.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != "example.com/strata:test" {
		t.Fatalf("layout index %+v, %v", outer, err)
	}
	ours, err := idx.ImageIndex(outer.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	im, err := ours.IndexManifest()
	if err != nil || len(im.Manifests) != 1 || im.Manifests[0].Platform == nil || im.Manifests[0].Platform.Architecture != runtime.GOARCH {
		t.Fatalf("image index %+v, %v", im, err)
	}
	img, err := ours.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.OS != "linux" || cf.Architecture != runtime.GOARCH || !slices.Equal(cf.Config.Entrypoint, []string{"/strata"}) || cf.Config.User != "65532:65532" {
		t.Errorf("config: os %s arch %s entrypoint %v user %q", cf.OS, cf.Architecture, cf.Config.Entrypoint, cf.Config.User)
	}
	if cf.Created.Unix() != 1700000000 {
		t.Errorf("created %v, want SOURCE_DATE_EPOCH", cf.Created)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers %d, %v", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	h, err := tr.Next()
	if err != nil || h.Name != "strata" || h.Mode&0o111 == 0 || h.Uid != 0 || h.Uname != "" {
		t.Fatalf("layer entry %+v, %v", h, err)
	}
	bin, err := io.ReadAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Next(); err != io.EOF {
		t.Errorf("the layer holds more than /strata: %v", err)
	}
	f, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		t.Fatal(err)
	}
	if f.Machine != machine {
		t.Errorf("binary for %v, want %v", f.Machine, machine)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("binary is dynamically linked: the image has no libc")
		}
	}

	// The tarball is the same image, for `docker load`.
	timg, err := tarball.ImageFromPath(filepath.Join(dir, "a.tar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	tcf, err := timg.ConfigFile()
	if err != nil || tcf.Architecture != runtime.GOARCH || tcf.Config.User != "65532:65532" {
		t.Errorf("tarball config %+v, %v", tcf, err)
	}
}

// The image of a platform says that platform, runs /strata as the
// non-root user, and is the same bytes when built twice.
func TestImageConfig(t *testing.T) {
	when := time.Unix(1700000000, 0).UTC()
	for _, arch := range []string{"amd64", "arm64", "s390x"} {
		t.Run(arch, func(t *testing.T) {
			a, err := image([]byte("binary "+arch), "linux", arch, when, "0123abcd")
			if err != nil {
				t.Fatal(err)
			}
			b, err := image([]byte("binary "+arch), "linux", arch, when, "0123abcd")
			if err != nil {
				t.Fatal(err)
			}
			da, _ := a.Digest()
			db, _ := b.Digest()
			if da != db {
				t.Errorf("digests %s, %s", da, db)
			}
			cf, err := a.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			if cf.OS != "linux" || cf.Architecture != arch || cf.Config.User != User || !slices.Equal(cf.Config.Entrypoint, []string{Entrypoint}) ||
				cf.Config.Labels["org.opencontainers.image.revision"] != "0123abcd" || !cf.Created.Time.Equal(when) {
				t.Errorf("config %+v", cf)
			}
			m, err := a.Manifest()
			if err != nil || m.MediaType != "application/vnd.oci.image.manifest.v1+json" || m.Config.MediaType != "application/vnd.oci.image.config.v1+json" {
				t.Errorf("manifest %+v, %v", m, err)
			}
		})
	}
}
