#!/usr/bin/env bash
# Lints the Helm chart and renders it for each provider; every rendered document must parse as
# YAML and the sim rendering must hold the expected kinds. Needs `helm` (v3) on PATH or in $HELM.
# Build one from the Go module proxy if your distribution has none:
#   GOBIN=/usr/local/bin go install helm.sh/helm/v3/cmd/helm@v3.22.0
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
chart="$here/../charts/karpenter-ts"
helm="${HELM:-helm}"
command -v "$helm" >/dev/null || { echo "lint-chart: helm not found (set HELM or put it on PATH)" >&2; exit 1; }

node "$here/sync-crds.mjs" --check
"$helm" lint --strict "$chart"
"$helm" lint --strict "$chart" --set provider=azure --set clusterName=aks-1
"$helm" lint --strict "$chart" --set provider=aws --set clusterName=eks-1
if "$helm" template t "$chart" --kube-version 1.36.3 --set provider=azure >/dev/null 2>&1; then
  echo "lint-chart: provider=azure without clusterName must fail" >&2; exit 1
fi
for args in "--set provider=sim" "--set provider=azure --set clusterName=aks-1" "--set provider=aws --set clusterName=eks-1"; do
  # shellcheck disable=SC2086
  "$helm" template karpenter-ts "$chart" --kube-version 1.36.3 --namespace karpenter --include-crds $args \
    | node "$here/check-rendered.mjs" "$args"
done
echo "lint-chart: ok"
