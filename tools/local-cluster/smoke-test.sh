#!/usr/bin/env bash
# Smoke test of the local control plane against the project's CRDs and examples:
# starts a fresh cluster in its own state folder, checks it, and always stops it.
# Prints one line per check and a closing "N passed, N failed" line; exits 1 on any failure.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
export KARPENTER_TS_CLUSTER_DIR
KARPENTER_TS_CLUSTER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/karpenter-ts-smoke.XXXXXX")
trap '"$HERE/cluster.sh" stop || true' EXIT

"$HERE/cluster.sh" start >/dev/null
eval "$("$HERE/cluster.sh" env)"
OUT=$KARPENTER_TS_CLUSTER_DIR/smoke-output
passed=0
failed=0

# check "description" command...: passes when the command exits 0; its output is in $OUT.
check() {
  local desc=$1
  shift
  if "$@" >"$OUT" 2>&1; then
    passed=$((passed + 1))
    echo "ok   - $desc"
  else
    failed=$((failed + 1))
    echo "FAIL - $desc"
    sed 's/^/       /' "$OUT"
  fi
}

# rejected "description" pattern command...: passes when the command fails and its output
# matches the pattern (so a rejection for an unrelated reason does not count).
rejected() {
  local desc=$1 pattern=$2
  shift 2
  if "$@" >"$OUT" 2>&1; then
    failed=$((failed + 1))
    echo "FAIL - $desc (was accepted)"
  elif grep -Eq "$pattern" "$OUT"; then
    passed=$((passed + 1))
    echo "ok   - $desc"
    sed -n '1,3s/^/       /p' "$OUT"
  else
    failed=$((failed + 1))
    echo "FAIL - $desc (rejected, but not with /$pattern/)"
    sed 's/^/       /' "$OUT"
  fi
}

output_is() { # expected command...
  local expected=$1 actual
  shift
  actual=$("$@") || return 1
  [[ $actual == "$expected" ]] || {
    echo "expected '$expected', got '$actual'"
    return 1
  }
}

check "server reports Kubernetes ${KUBE_VERSION:-v1.36.3}" \
  output_is "${KUBE_VERSION:-v1.36.3}" sh -c 'kubectl get --raw /version | grep -o "\"gitVersion\": *\"[^\"]*\"" | cut -d\" -f4'
check "every apiserver readiness check passes" kubectl get --raw '/readyz?verbose'

# Server-side apply: the CRDs are too large for client-side apply's last-applied annotation.
check "applies the karpenter.sh CRDs" kubectl apply --server-side -f "$ROOT/packages/api/crds/"
# Polls rather than `kubectl wait`, which errors if it reads a CRD before its first status.
established() {
  local crd
  for _ in $(seq 1 60); do
    for crd in nodepools nodeclaims nodeoverlays; do
      [[ $(kubectl get "crd/$crd.karpenter.sh" -o jsonpath='{.status.conditions[?(@.type=="Established")].status}') == True ]] || continue 2
    done
    return 0
  done
  echo "not all karpenter.sh CRDs Established after 60 tries"
  return 1
}
check "CRDs become Established" established
check "lists the CRDs" sh -c 'kubectl get crds -o name | grep -c "karpenter.sh" | grep -qx 3'
check "discovery serves karpenter.sh/v1 nodepools and nodeclaims" \
  sh -c 'kubectl api-resources --api-group=karpenter.sh -o name | sort | tr "\n" " " | grep -q "nodeclaims.karpenter.sh nodeoverlays.karpenter.sh nodepools.karpenter.sh"'

pools=("$ROOT"/examples/nodepools/*.yaml)
for f in "${pools[@]}"; do
  check "creates the valid NodePool examples/nodepools/$(basename "$f")" kubectl create -f "$f"
done
check "lists the created NodePools" \
  output_is "${#pools[@]}" sh -c 'kubectl get nodepools -o name | wc -l'
# aws-ec2.yaml omits disruption budgets; the server must apply the CRD's default.
check "server applies the CRD default for disruption budgets" \
  output_is '[{"nodes":"10%"}]' kubectl get nodepool aws-default -o jsonpath='{.spec.disruption.budgets}'

rejected "rejects examples/invalid/bad-disruption-and-limits.yaml (schema and CEL rules)" \
  'NodePool "bad-disruption" is invalid' kubectl create -f "$ROOT/examples/invalid/bad-disruption-and-limits.yaml"
rejected "rejects examples/invalid/bad-requirements.yaml (requirement rules)" \
  'NodePool "bad-requirements" is invalid' kubectl create -f "$ROOT/examples/invalid/bad-requirements.yaml"
rejected "rejects examples/invalid/v1beta1-fields.yaml (unknown fields, strict field validation)" \
  'unknown field' kubectl create --validate=strict -f "$ROOT/examples/invalid/v1beta1-fields.yaml"
# kubectl cannot even parse malformed.yaml, so send its bytes to the API server itself:
# prints the server's Status message; fails on an HTTP error code.
post_yaml() { # file path
  local pki=$KARPENTER_TS_CLUSTER_DIR/pki code
  code=$(curl -sS -o "$OUT.body" -w '%{http_code}' --cacert "$pki/ca.crt" --cert "$pki/admin.crt" \
    --key "$pki/admin.key" -H 'Content-Type: application/yaml' --data-binary "@$1" \
    "$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}')$2")
  echo "HTTP $code: $(sed -n 's/^ *"message": *"\(.*\)",$/\1/p' "$OUT.body")"
  [[ $code -lt 400 ]]
}
rejected "API server rejects examples/invalid/malformed.yaml (duplicate key, bad indentation)" \
  '^HTTP 400' post_yaml "$ROOT/examples/invalid/malformed.yaml" '/apis/karpenter.sh/v1/nodepools?fieldValidation=Strict'
check "no invalid NodePool was stored" \
  sh -c '! kubectl get nodepools -o name | grep -E "bad-disruption|bad-requirements|legacy|malformed"'

# Controller-manager at work: the serviceaccount controller fills every new namespace.
check "creates a namespace" kubectl create namespace smoke
# shellcheck disable=SC2016 # $(seq) is for the inner sh
check "kube-controller-manager creates the namespace's default ServiceAccount" \
  sh -c 'for i in $(seq 1 60); do kubectl -n smoke get serviceaccount default && exit 0; sleep 1; done; exit 1'
# Scheduler at work: with no nodes it must mark a pod Unschedulable (not leave it untouched).
check "creates a pod" kubectl -n smoke run pause --image=registry.k8s.io/pause:3.10 --restart=Never
check "kube-scheduler marks the pod Unschedulable (there are no nodes)" \
  kubectl -n smoke wait pod/pause --timeout=60s \
  --for=jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}'=Unschedulable

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
