#!/usr/bin/env bash
# Builds the Helm v3 CLI from the Go module proxy into a cache folder outside the repo, for the
# chart tests (apps/controller/test/e2e/chart.e2e.ts) and deploy/scripts/lint-chart.sh. build.sh
# calls it when asked for `helm` (and by default).
#
# Usage: build-helm.sh              prints the helm binary's path on its last line of stdout
# Env:   HELM_VERSION (default v3.22.0), KARPENTER_TS_CACHE (default $HOME/.cache/karpenter-ts).
#        The binary goes to $KARPENTER_TS_CACHE/helm/$HELM_VERSION/bin/helm and is reused while
#        `helm version` reports $HELM_VERSION (an older build of ours without the version stamp is
#        rebuilt once).
#
# Built as `GOBIN=<bin> go install helm.sh/helm/v3/cmd/helm@<version>`, plus the link-time
# values helm's own Makefile sets: the version, and the Kubernetes version helm assumes when no
# cluster is asked (from the k8s.io/client-go it is built with; unset it is v1.20, which every
# chart with `kubeVersion: >=1.29` refuses).
set -euo pipefail

HELM_VERSION=${HELM_VERSION:-v3.22.0}
CACHE_ROOT=${KARPENTER_TS_CACHE:-$HOME/.cache/karpenter-ts}
BIN_DIR="$CACHE_ROOT/helm/$HELM_VERSION/bin"
HELM_BIN="$BIN_DIR/helm"

log() { echo "build-helm.sh: $*" >&2; }
die() {
  log "ERROR: $*"
  exit 1
}

[[ $HELM_VERSION =~ ^v3\.[0-9]+\.[0-9]+$ ]] || die "HELM_VERSION must look like v3.22.0, got '$HELM_VERSION'"

if [[ -x $HELM_BIN ]]; then
  if [[ $("$HELM_BIN" version --template '{{.Version}}' 2>/dev/null || true) == "$HELM_VERSION" ]]; then
    log "reusing $HELM_BIN"
    echo "$HELM_BIN"
    exit 0
  fi
  log "$HELM_BIN does not report $HELM_VERSION; rebuilding it"
fi

command -v go >/dev/null || die "go is not on PATH (needed to build helm $HELM_VERSION)"
export GOTOOLCHAIN=local # never download a toolchain; the registries here serve modules only
export CGO_ENABLED=0     # a static binary, as helm releases are
mkdir -p "$BIN_DIR"

# helm's go.mod names the client-go it is built with; v0.<minor>.x is Kubernetes 1.<minor>.
probe=$(cd "$BIN_DIR" && go mod download -json "helm.sh/helm/v3@$HELM_VERSION") || {
  printf '%s\n' "$probe" >&2
  die "go mod download helm.sh/helm/v3@$HELM_VERSION failed (output above)"
}
gomod=$(printf '%s\n' "$probe" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
[[ -f $gomod ]] || die "no go.mod path in: $probe"
kube_minor=$(sed -n 's#^[[:space:]]*k8s\.io/client-go v0\.\([0-9]*\)\..*#\1#p' "$gomod" | head -n 1)
[[ -n $kube_minor ]] || die "found no k8s.io/client-go requirement in $gomod"

ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
  ldflags+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$kube_minor"
done

# go install writes into GOBIN; a scratch GOBIN and a rename keep an interrupted build from
# counting as present.
scratch=$(mktemp -d "$BIN_DIR/.build.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
log "building helm $HELM_VERSION (Kubernetes default 1.$kube_minor; nice -n 19, -trimpath)"
start=$(date +%s)
GOBIN="$scratch" nice -n 19 go install -trimpath -ldflags "$ldflags" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" ||
  die "go install helm.sh/helm/v3/cmd/helm@$HELM_VERSION failed; the compiler's error is above"
mv "$scratch/helm" "$HELM_BIN"
log "built $HELM_BIN in $(($(date +%s) - start))s ($(du -h "$HELM_BIN" | cut -f1))"
echo "$HELM_BIN"
