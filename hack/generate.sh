#!/usr/bin/env bash
# Regenerates every generated file, from Go types and kubebuilder markers:
#   - pkg/apis/{strata,blueprints}/v1alpha1/zz_generated.deepcopy.go
#     (deepcopy)
#   - config/crd/bases/*.yaml (CRDs)
#   - charts/strata/crds/ (a copy of config/crd/bases: Helm installs CRDs
#     from that folder and cannot reach outside the chart)
# The results are committed; hack/verify-generate.sh fails CI when they
# drift from the types. Needs only Go: controller-gen runs from
# the module proxy at its pinned version.
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
