// Module image builds Strata's container image from the repository with
// go-containerregistry, so that no Docker daemon is needed. It is a
// separate module so that go-containerregistry stays out of Strata's
// go.mod.
module github.com/strata-dev/strata/hack/image

go 1.26.0

require github.com/google/go-containerregistry v0.22.1

require (
	github.com/klauspost/compress v1.19.2 // indirect
	github.com/opencontainers/go-digest v1.0.0 // indirect
	github.com/opencontainers/image-spec v1.1.1 // indirect
	golang.org/x/sync v0.22.0 // indirect
)
