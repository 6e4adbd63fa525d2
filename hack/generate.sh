#!/usr/bin/env bash
# Regenerates every generated file, from Go types and kubebuilder markers:
#   - pkg/apis/{strata,blueprints}/v1alpha1/zz_generated.deepcopy.go
#     (deepcopy)
#   - config/crd/bases/*.yaml (CRDs)
#   - charts/strata/crds/ (a copy of config/crd/bases: Helm installs CRDs
#     from that folder and cannot reach outside the chart)
#   - pkg/source/files/internal/quickjson/zz_generated.easyjson.go (the
#     reader's decoders of the API types of typed.Kinds, by easyjson, with
#     empty objects decoded into empty maps by hack/emptymaps)
# The results are committed; hack/verify-generate.sh fails CI when they
# drift from the types. Needs only Go: controller-gen and easyjson run from
# the module proxy at their pinned versions.
set -euo pipefail
cd "$(dirname "$0")/.."

# v0.23.0 is built against k8s.io v0.37, as Strata is, and builds with Go
# 1.26. Changing it changes the version annotation of every CRD.
CONTROLLER_GEN_VERSION=v0.23.0
controller_gen=(go run "sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_GEN_VERSION}")

# Start from empty folders so a CRD whose type is gone does not linger.
rm -rf config/crd/bases charts/strata/crds
mkdir -p config/crd/bases charts/strata/crds

"${controller_gen[@]}" \
  object \
  crd \
  paths=./pkg/apis/strata/v1alpha1 \
  paths=./pkg/apis/blueprints/v1alpha1 \
  output:crd:artifacts:config=config/crd/bases

cp config/crd/bases/*.yaml charts/strata/crds/

# The same version as go.mod's github.com/mailru/easyjson: its generator
# (bootstrapped inside this module) and the decoders' runtime (jlexer)
# come from that module.
EASYJSON_VERSION=v0.9.0
quickjson=pkg/source/files/internal/quickjson
rm -f "$quickjson/zz_generated.easyjson.go"
(cd "$quickjson" && go run "github.com/mailru/easyjson/easyjson@${EASYJSON_VERSION}" -output_filename zz_generated.easyjson.go types.go)
go run ./hack/emptymaps "$quickjson/zz_generated.easyjson.go"
