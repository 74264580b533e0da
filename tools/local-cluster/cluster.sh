#!/usr/bin/env bash
# A real, local Kubernetes control plane (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler) on loopback ports, as plain processes: no Docker, no systemd, no kubelet.
#
# Usage: cluster.sh start | stop | status | env | kubeconfig
#   start       builds or reuses the binaries (build.sh), generates certs and kubeconfigs, starts
#               the four processes, waits until all are healthy; prints the admin kubeconfig path
#               as the last line of stdout (progress goes to stderr).
#   stop        stops the processes by their recorded ids and deletes the state folder
#               (set KEEP_STATE=1 to keep logs and data).
#   status      prints each component's pid and health; exits 1 if any is down.
#   env         prints `export KUBECONFIG=...` and `export PATH=<bin>:$PATH` for eval.
#   kubeconfig  prints the admin kubeconfig path.
# Env: KARPENTER_TS_CLUSTER_DIR  state folder (default ${TMPDIR:-/tmp}/karpenter-ts-cluster);
#      use a distinct folder per concurrent cluster.
#      KUBE_VERSION, ETCD_VERSION, KARPENTER_TS_CACHE are passed to build.sh.
#      START_TIMEOUT  seconds to wait for health (default 180).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
STATE=${KARPENTER_TS_CLUSTER_DIR:-${TMPDIR:-/tmp}/karpenter-ts-cluster}
START_TIMEOUT=${START_TIMEOUT:-180}
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler)
SERVICE_CIDR=10.0.0.0/24 # only a setting for Service IP allocation; nothing routes to it

log() { echo "cluster.sh: $*" >&2; }
die() {
  log "ERROR: $*"
  exit 1
}

pid_of() { if [[ -f $STATE/pids/$1 ]]; then cat "$STATE/pids/$1"; fi; }
# True while the recorded pid is still our binary (a recycled pid of another program is not).
alive() {
  local pid argv0
  pid=$(pid_of "$1")
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 1
  argv0=$(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | head -n 1)
  [[ $argv0 == */"$1" ]]
}
port_of() { cat "$STATE/ports/$1"; }

# Ports in LISTEN state on this machine, from /proc (no ss/netstat needed).
listening_ports() {
  local f hex
  for f in /proc/net/tcp /proc/net/tcp6; do
    [[ -r $f ]] || continue
    # Column 2 is local "ADDR:PORT" in hex; state 0A is LISTEN.
    while read -r hex; do
      echo $((16#$hex))
    done < <(awk 'NR > 1 && $4 == "0A" { n = split($2, a, ":"); print a[n] }' "$f")
  done
}

# Picks n distinct free ports in 20000-32767 (below Linux's ephemeral range, so outgoing
# connections cannot take them between choosing and binding).
free_ports() {
  local n=$1 used chosen=() p
  used=" $(listening_ports | tr '\n' ' ') "
  while [[ ${#chosen[@]} -lt $n ]]; do
    p=$((20000 + RANDOM % 12768))
    [[ $used == *" $p "* || " ${chosen[*]} " == *" $p "* ]] && continue
    chosen+=("$p")
  done
  echo "${chosen[@]}"
}

# --- certificates -------------------------------------------------------------------------------
gen_certs() {
  local pki=$STATE/pki
  mkdir -p "$pki"
  (
    cd "$pki"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 \
      -subj "/CN=karpenter-ts-local-ca" 2>/dev/null
    # Signs name.crt with the CA. $2 = subject, $3 = extensions.
    sign() {
      openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$2" 2>/dev/null
      printf '%s\n' "$3" >"$1.ext"
      openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
        -extfile "$1.ext" -out "$1.crt" 2>/dev/null
      rm -f "$1.csr" "$1.ext"
    }
    local client="basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth"
    sign apiserver "/CN=kube-apiserver" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,DNS:localhost,IP:10.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
    # Identities the default RBAC bindings know: system:masters is cluster-admin.
    sign admin "/O=system:masters/CN=kubernetes-admin" "$client"
    sign controller-manager "/CN=system:kube-controller-manager" "$client"
    sign scheduler "/CN=system:kube-scheduler" "$client"
    # Front-proxy (request-header) CA and client, as kubeadm sets up: the apiserver publishes
    # this CA for aggregated API servers, and controller-manager/scheduler log errors without it.
    openssl req -x509 -newkey rsa:2048 -nodes -keyout front-proxy-ca.key -out front-proxy-ca.crt \
      -days 2 -subj "/CN=karpenter-ts-local-front-proxy-ca" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout front-proxy-client.key -out front-proxy-client.csr \
      -subj "/CN=front-proxy-client" 2>/dev/null
    printf '%s\n' "$client" >front-proxy-client.ext
    openssl x509 -req -in front-proxy-client.csr -CA front-proxy-ca.crt -CAkey front-proxy-ca.key \
      -CAcreateserial -days 2 -extfile front-proxy-client.ext -out front-proxy-client.crt 2>/dev/null
    rm -f front-proxy-client.csr front-proxy-client.ext
    # Service-account token signing key pair.
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out sa.key 2>/dev/null
    openssl pkey -in sa.key -pubout -out sa.pub 2>/dev/null
    chmod 600 ./*.key
  ) || die "certificate generation with openssl failed"
}

write_kubeconfig() { # name user
  local out=$STATE/$1.kubeconfig pki=$STATE/pki
  cat >"$out" <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: karpenter-ts-local
    cluster:
      server: https://127.0.0.1:$(port_of kube-apiserver)
      certificate-authority-data: $(base64 -w0 <"$pki/ca.crt")
users:
  - name: $2
    user:
      client-certificate-data: $(base64 -w0 <"$pki/$1.crt")
      client-key-data: $(base64 -w0 <"$pki/$1.key")
contexts:
  - name: karpenter-ts-local
    context:
      cluster: karpenter-ts-local
      user: $2
current-context: karpenter-ts-local
EOF
  chmod 600 "$out"
}

# --- processes ----------------------------------------------------------------------------------
launch() { # name args...
  local name=$1
  shift
  # setsid: own session, so the caller's terminal or job control does not signal it; stop
  # signals it by pid.
  setsid "$BIN/$name" "$@" >"$STATE/logs/$name.log" 2>&1 </dev/null &
  local pid=$! waited=0 exe
  exe=$(readlink -f "$BIN/$name")
  echo "$pid" >"$STATE/pids/$name"
  # Until the child has exec'd the binary its argv0 is bash's or setsid's, and alive() (which
  # checks argv0 against pid reuse) would call it dead: on a loaded machine kube-controller-
  # manager was once "exited during start-up" with an empty log. Wait for the exec (or a death).
  while [[ $(readlink "/proc/$pid/exe" 2>/dev/null) != "$exe" ]] && kill -0 "$pid" 2>/dev/null; do
    ((waited++ < 200)) || break
    sleep 0.05
  done
  log "started $name (pid $pid, log $STATE/logs/$name.log)"
}

health_url() {
  case $1 in
    etcd) echo "http://127.0.0.1:$(port_of etcd)/health" ;;
    *) echo "https://127.0.0.1:$(port_of "$1")/$([[ $1 == kube-apiserver ]] && echo readyz || echo healthz)" ;;
  esac
}

healthy() {
  local url
  url=$(health_url "$1")
  case $1 in
    etcd) curl -fsS --max-time 2 "$url" 2>/dev/null | grep -q '"health":"true"' ;;
    kube-apiserver)
      curl -fsS --max-time 5 --cacert "$STATE/pki/ca.crt" --cert "$STATE/pki/admin.crt" \
        --key "$STATE/pki/admin.key" "$url" >/dev/null 2>&1
      ;;
    # Their serving certs are self-signed in --cert-dir; /healthz is always allowed anonymously.
    *) curl -fsSk --max-time 2 "$url" >/dev/null 2>&1 ;;
  esac
}

wait_healthy() {
  local name=$1 deadline=$(($(date +%s) + START_TIMEOUT))
  until healthy "$name"; do
    if ! alive "$name"; then
      log "$name exited during start-up; last lines of its log:"
      tail -n 30 "$STATE/logs/$name.log" >&2 || true
      stop_processes
      die "$name failed to start (full log: $STATE/logs/$name.log)"
    fi
    if [[ $(date +%s) -ge $deadline ]]; then
      log "$name not healthy at $(health_url "$name") after ${START_TIMEOUT}s; last lines of its log:"
      tail -n 30 "$STATE/logs/$name.log" >&2 || true
      stop_processes
      die "$name did not become healthy"
    fi
    sleep 0.5
  done
  log "$name healthy ($(health_url "$name"))"
}

stop_processes() {
  local i name pid
  for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do
    name=${COMPONENTS[i]}
    pid=$(pid_of "$name")
    [[ -n $pid ]] || continue
    if alive "$name"; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 40); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.25
      done
      if kill -0 "$pid" 2>/dev/null; then
        log "$name (pid $pid) ignored SIGTERM for 10s; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
      fi
      log "stopped $name (pid $pid)"
    fi
    rm -f "$STATE/pids/$name"
  done
}

cmd_start() {
  if [[ -d $STATE/pids ]]; then
    for name in "${COMPONENTS[@]}"; do
      alive "$name" && die "a cluster is already running in $STATE ($name pid $(pid_of "$name")); run '$0 stop' or set KARPENTER_TS_CLUSTER_DIR"
    done
    rm -rf "$STATE"
  fi
  for tool in openssl curl base64 setsid awk; do
    command -v "$tool" >/dev/null || die "'$tool' is required but not on PATH"
  done
  BIN=$("$HERE/build.sh" "${COMPONENTS[@]}" kubectl | tail -n 1) || die "build.sh failed (its error is above)"
  mkdir -p "$STATE"/{pids,ports,logs,data,etcd}
  echo "$BIN" >"$STATE/bin-dir"

  local ports
  read -r -a ports <<<"$(free_ports 5)"
  echo "${ports[0]}" >"$STATE/ports/etcd"
  echo "${ports[1]}" >"$STATE/ports/etcd-peer"
  echo "${ports[2]}" >"$STATE/ports/kube-apiserver"
  echo "${ports[3]}" >"$STATE/ports/kube-controller-manager"
  echo "${ports[4]}" >"$STATE/ports/kube-scheduler"
  log "state in $STATE; apiserver on https://127.0.0.1:${ports[2]}"

  gen_certs
  write_kubeconfig admin kubernetes-admin
  write_kubeconfig controller-manager system:kube-controller-manager
  write_kubeconfig scheduler system:kube-scheduler
  local pki=$STATE/pki etcd_url="http://127.0.0.1:${ports[0]}" peer_url="http://127.0.0.1:${ports[1]}"

  chmod 700 "$STATE/etcd"
  # --endpoint-reconciler-type=none (apiserver, below): the "kubernetes" Service's Endpoints may
  # not hold a loopback address, and no pod runs here to use them.
  # --unsafe-no-fsync: the data is thrown away at stop, so durability only costs time.
  launch etcd --name=local --data-dir="$STATE/etcd" \
    --listen-client-urls="$etcd_url" --advertise-client-urls="$etcd_url" \
    --listen-peer-urls="$peer_url" --initial-advertise-peer-urls="$peer_url" \
    --initial-cluster="local=$peer_url" --log-level=warn --unsafe-no-fsync
  wait_healthy etcd

  launch kube-apiserver --etcd-servers="$etcd_url" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="${ports[2]}" \
    --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
    --client-ca-file="$pki/ca.crt" --authorization-mode=Node,RBAC \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key" \
    --service-cluster-ip-range="$SERVICE_CIDR" --allow-privileged=true \
    --requestheader-client-ca-file="$pki/front-proxy-ca.crt" \
    --requestheader-allowed-names=front-proxy-client \
    --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group \
    --requestheader-extra-headers-prefix=X-Remote-Extra- \
    --proxy-client-cert-file="$pki/front-proxy-client.crt" \
    --proxy-client-key-file="$pki/front-proxy-client.key" \
    --endpoint-reconciler-type=none \
    --cert-dir="$STATE/data/apiserver" --profiling=false --v=1
  wait_healthy kube-apiserver

  launch kube-controller-manager --kubeconfig="$STATE/controller-manager.kubeconfig" \
    --authentication-kubeconfig="$STATE/controller-manager.kubeconfig" \
    --authorization-kubeconfig="$STATE/controller-manager.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="${ports[3]}" --cert-dir="$STATE/data/controller-manager" \
    --leader-elect=false --use-service-account-credentials=true \
    --service-account-private-key-file="$pki/sa.key" --root-ca-file="$pki/ca.crt" \
    --cluster-signing-cert-file="$pki/ca.crt" --cluster-signing-key-file="$pki/ca.key" \
    --service-cluster-ip-range="$SERVICE_CIDR" --profiling=false --v=1
  # --v=2: the scheduler's "Unable to schedule pod" lines (why a pod stays pending) are at level 2.
  launch kube-scheduler --kubeconfig="$STATE/scheduler.kubeconfig" \
    --authentication-kubeconfig="$STATE/scheduler.kubeconfig" \
    --authorization-kubeconfig="$STATE/scheduler.kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="${ports[4]}" --cert-dir="$STATE/data/scheduler" \
    --leader-elect=false --profiling=false --v=2
  wait_healthy kube-controller-manager
  wait_healthy kube-scheduler

  log "cluster ready; use: eval \"\$($0 env)\""
  echo "$STATE/admin.kubeconfig"
}

cmd_stop() {
  [[ -d $STATE ]] || {
    log "no cluster state in $STATE; nothing to stop"
    return 0
  }
  stop_processes
  if [[ ${KEEP_STATE:-0} == 1 ]]; then
    log "kept $STATE (KEEP_STATE=1)"
  else
    rm -rf "$STATE"
    log "removed $STATE"
  fi
}

cmd_status() {
  [[ -d $STATE/pids ]] || {
    echo "no cluster in $STATE"
    return 1
  }
  local rc=0 name state
  for name in "${COMPONENTS[@]}"; do
    if ! alive "$name"; then
      state=down
      rc=1
    elif healthy "$name"; then
      state=healthy
    else
      state=unhealthy
      rc=1
    fi
    printf '%-24s pid %-8s port %-6s %s\n' "$name" "$(pid_of "$name")" "$(port_of "$name")" "$state"
  done
  echo "kubeconfig: $STATE/admin.kubeconfig"
  return $rc
}

cmd_env() {
  [[ -f $STATE/admin.kubeconfig ]] || die "no cluster in $STATE; run '$0 start'"
  echo "export KUBECONFIG=$STATE/admin.kubeconfig"
  echo "export PATH=$(cat "$STATE/bin-dir"):\$PATH"
}

# Sourced (a test of launch and alive), it only defines the functions.
[[ ${BASH_SOURCE[0]} == "$0" ]] || return 0
case ${1:-} in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env ;;
  kubeconfig)
    [[ -f $STATE/admin.kubeconfig ]] || die "no cluster in $STATE"
    echo "$STATE/admin.kubeconfig"
    ;;
  *) die "usage: $0 start|stop|status|env|kubeconfig" ;;
esac
