// Command image builds Strata's container image without Docker: it
// cross-compiles the strata binary (static, CGO off) for each platform and
// writes an OCI image layout, with go-containerregistry.
//
//	go -C hack/image run . [-platforms linux/amd64,linux/arm64] [-o bin/image] [-tar bin/strata.tar -tag ghcr.io/strata-dev/strata:dev]
//
// The image holds /strata, run as 65532:65532 (distroless' "nonroot"). It
// is reproducible: every timestamp is HEAD's commit time (or
// SOURCE_DATE_EPOCH), tar headers carry no owner names and the binary is
// built with -trimpath. docs/install.md says how to push it.
package main

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// User is the image's user: distroless' "nonroot", the UID the manifests
// (config/manager, the Helm chart) set as runAsUser.
const User = "65532:65532"

// Entrypoint is the binary's path in the image.
const Entrypoint = "/strata"

func main() {
	o := options{}
	flag.StringVar(&o.platforms, "platforms", "linux/amd64,linux/arm64", "comma-separated OS/ARCH list")
	flag.StringVar(&o.out, "o", "", "OCI image layout directory to write (default: bin/image in the repository)")
	flag.StringVar(&o.tar, "tar", "", "also write a tarball of the first platform's image for `docker load` or `crane push`")
	flag.StringVar(&o.tag, "tag", "ghcr.io/strata-dev/strata:dev", "image reference written into the tarball and the layout's ref.name annotation")
	flag.Parse()
	res, err := build(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hack/image:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s\nindex %s\n", res.layout, res.index)
	for _, m := range res.images {
		fmt.Printf("  %s %s\n", m.platform, m.digest)
	}
}

type options struct {
	platforms string
	out, tar  string
	tag       string
	repo      string // the repository root; empty: found from the working directory
}

type result struct {
	layout string
	index  v1.Hash
	images []built
}

type built struct {
	platform string
	digest   v1.Hash
}

func build(ctx context.Context, o options) (*result, error) {
	repo := o.repo
	if repo == "" {
		var err error
		if repo, err = repoRoot(); err != nil {
			return nil, err
		}
	}
	if o.out == "" {
		o.out = filepath.Join(repo, "bin", "image")
	}
	ref, err := name.ParseReference(o.tag)
	if err != nil {
		return nil, fmt.Errorf("-tag %q: %w", o.tag, err)
	}
	when, err := sourceDate(ctx, repo)
	if err != nil {
		return nil, err
	}
	revision, _ := git(ctx, repo, "rev-parse", "HEAD")
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	res := &result{layout: o.out}
	var first v1.Image
	for _, p := range strings.Split(o.platforms, ",") {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(p), "/")
		if !ok || goos == "" || goarch == "" {
			return nil, fmt.Errorf("-platforms: %q is not OS/ARCH", p)
		}
		bin, err := compile(ctx, repo, goos, goarch)
		if err != nil {
			return nil, err
		}
		img, err := image(bin, goos, goarch, when, revision)
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", goos, goarch, err)
		}
		d, err := img.Digest()
		if err != nil {
			return nil, err
		}
		res.images = append(res.images, built{platform: goos + "/" + goarch, digest: d})
		if first == nil {
			first = img
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: goos, Architecture: goarch}},
		})
	}
	if first == nil {
		return nil, errors.New("-platforms: none given")
	}
	// A fresh layout each time: layout.Write appends blobs, and a stale
	// index.json would list images of an earlier build.
	if err := os.RemoveAll(o.out); err != nil {
		return nil, err
	}
	lp, err := layout.Write(o.out, empty.Index)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", o.out, err)
	}
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": ref.String()})); err != nil {
		return nil, fmt.Errorf("writing %s: %w", o.out, err)
	}
	if res.index, err = idx.Digest(); err != nil {
		return nil, err
	}
	if o.tar != "" {
		if err := tarball.WriteToFile(o.tar, ref, first); err != nil {
			return nil, fmt.Errorf("writing %s: %w", o.tar, err)
		}
	}
	return res, nil
}

// compile builds a static strata binary for one platform; -buildvcs
// records the commit for `strata version`.
func compile(ctx context.Context, repo, goos, goarch string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "strata-image-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "strata")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=true", "-ldflags=-s -w", "-o", out, "./cmd/strata")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch, "GOFLAGS=")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go build for %s/%s: %w", goos, goarch, err)
	}
	return os.ReadFile(out)
}

// image is one platform's image: one layer holding the binary, and a
// config that runs it as a non-root user.
func image(bin []byte, goos, goarch string, when time.Time, revision string) (v1.Image, error) {
	layerTar, err := tarOf(Entrypoint[1:], bin, when)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{
		Layer:   layer,
		History: v1.History{Created: v1.Time{Time: when}, CreatedBy: "hack/image: strata binary"},
	})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = goos, goarch
	cf.Created = v1.Time{Time: when}
	cf.Config.Entrypoint = []string{Entrypoint}
	cf.Config.User = User
	cf.Config.WorkingDir = "/"
	cf.Config.Labels = map[string]string{
		"org.opencontainers.image.source": "https://github.com/strata-dev/strata",
		"org.opencontainers.image.title":  "strata",
	}
	if revision != "" {
		cf.Config.Labels["org.opencontainers.image.revision"] = revision
	}
	return mutate.ConfigFile(img, cf)
}

// tarOf is a tar stream of one executable file with fixed metadata.
func tarOf(path string, content []byte, when time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	h := &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     path,
		Mode:     0o555,
		Size:     int64(len(content)),
		ModTime:  when,
		Format:   tar.FormatPAX,
	}
	if err := tw.WriteHeader(h); err != nil {
		return nil, err
	}
	if _, err := tw.Write(content); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// sourceDate is the time every timestamp of the image carries:
// SOURCE_DATE_EPOCH when set, else the commit time of HEAD.
func sourceDate(ctx context.Context, repo string) (time.Time, error) {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: %w", s, err)
		}
		return time.Unix(sec, 0).UTC(), nil
	}
	out, err := git(ctx, repo, "log", "-1", "--format=%ct")
	if err != nil {
		return time.Time{}, fmt.Errorf("the commit time of HEAD (set SOURCE_DATE_EPOCH outside a git checkout): %w", err)
	}
	sec, err := strconv.ParseInt(out, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("commit time %q: %w", out, err)
	}
	return time.Unix(sec, 0).UTC(), nil
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// repoRoot is the directory of Strata's go.mod, found upwards from the
// working directory (hack/image when run with `go -C hack/image run .`).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(b), "module github.com/strata-dev/strata\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the strata repository (no go.mod of module github.com/strata-dev/strata above the working directory)")
		}
		dir = parent
	}
}
