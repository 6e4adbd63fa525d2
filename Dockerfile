# Strata's image for those who build with Docker (or Buildah, Podman):
#   docker build -t strata:dev .
# The same image without Docker, reproducible by digest: hack/image
# (docs/install.md, "The image"). Both hold one static binary, /strata,
# run as the non-root user 65532 that config/manager and the Helm chart
# expect.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG TARGETOS=linux
ARG TARGETARCH=amd64
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -buildvcs=false -ldflags="-s -w" -o /out/strata ./cmd/strata

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/strata /strata
USER 65532:65532
ENTRYPOINT ["/strata"]
