#!/usr/bin/env bash
# Lints the Helm chart and renders it for each provider; every rendered document must parse as
# YAML and the rendering must hold the expected kinds. azure and aws are rendered with the complete
# ci/azure-values.yaml and ci/aws-values.yaml, and must fail without their required values (all
# named in one message); a misspelt value must fail the schema check.
# helm: $HELM, else the build of tools/local-cluster/build-helm.sh (in $KARPENTER_TS_CACHE, which
# `bash tools/local-cluster/build.sh helm` makes), else `helm` on PATH.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
chart="$here/../charts/karpenter-ts"
cached="${KARPENTER_TS_CACHE:-$HOME/.cache/karpenter-ts}/helm/${HELM_VERSION:-v3.22.0}/bin/helm"
if [[ -n ${HELM:-} ]]; then
  helm="$HELM"
elif [[ -x $cached ]]; then
  helm="$cached"
else
  helm=helm
fi
command -v "$helm" >/dev/null || {
  echo "lint-chart: helm not found (set HELM, run 'bash tools/local-cluster/build.sh helm', or put helm on PATH)" >&2
  exit 1
}
azure="$chart/ci/azure-values.yaml"
aws="$chart/ci/aws-values.yaml"

node "$here/sync-crds.mjs" --check
"$helm" lint --strict "$chart"
"$helm" lint --strict "$chart" -f "$azure"
"$helm" lint --strict "$chart" -f "$aws"
if "$helm" template t "$chart" --kube-version 1.36.3 --set provider=azure >/dev/null 2>&1; then
  echo "lint-chart: provider=azure without clusterName must fail" >&2; exit 1
fi
if "$helm" template t "$chart" --kube-version 1.36.3 --set provider=azure --set clusterName=aks-1 >/dev/null 2>&1; then
  echo "lint-chart: provider=azure without its required azure.* values must fail" >&2; exit 1
fi
# One failure lists every missing required value, not just the first.
missing="$("$helm" template t "$chart" --kube-version 1.36.3 --set provider=azure 2>&1 || true)"
for value in clusterName azure.subscriptionId azure.sshPublicKey azure.credential.clientID; do
  grep -q -- "- $value is required" <<<"$missing" || {
    echo "lint-chart: provider=azure with nothing set must name $value among the missing values, got: $missing" >&2; exit 1
  }
done
missing="$("$helm" template t "$chart" --kube-version 1.36.3 --set provider=aws 2>&1 || true)"
for value in clusterName aws.region aws.clusterEndpoint aws.credential.roleArn; do
  grep -q -- "- $value is required" <<<"$missing" || {
    echo "lint-chart: provider=aws with nothing set must name $value among the missing values, got: $missing" >&2; exit 1
  }
done
# The schema refuses unknown keys (here a misspelt clusterName), naming them.
typo="$("$helm" template t "$chart" --kube-version 1.36.3 --set clustername=aks-1 2>&1 || true)"
grep -q "additional properties 'clustername' not allowed" <<<"$typo" || {
  echo "lint-chart: a misspelt top-level value (clustername) must fail naming it, got: $typo" >&2; exit 1
}
for args in "--set provider=sim" "-f $azure" "-f $aws"; do
  # shellcheck disable=SC2086
  "$helm" template karpenter-ts "$chart" --kube-version 1.36.3 --namespace karpenter --include-crds $args \
    | node "$here/check-rendered.mjs" "$args"
done
echo "lint-chart: ok"
