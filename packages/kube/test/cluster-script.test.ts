import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const clusterScript = fileURLToPath(
  new URL('../../../tools/local-cluster/cluster.sh', import.meta.url),
);

describe('tools/local-cluster/cluster.sh launch', () => {
  it('returns only once the process runs the binary, so alive() never calls a starting process dead', () => {
    // Right after a fork the child's argv0 is still bash's or setsid's (a third of 200 reads
    // on this machine): alive(), which checks argv0 against pid reuse, called a starting
    // kube-controller-manager "exited during start-up" with an empty log under load. Without
    // the wait in launch, 1 to 3 of these 100 launches were called dead on busy cores.
    const script = `
      set -euo pipefail
      source "$1"
      STATE=$(mktemp -d); BIN=$(dirname "$(readlink -f "$(command -v sleep)")")
      mkdir -p "$STATE/pids" "$STATE/logs"
      # Busy cores widen the window between fork and exec, as on the loaded machine.
      burners=()
      for b in 1 2 3 4; do (while :; do :; done) & burners+=($!); done
      dead=0
      for i in $(seq 1 100); do
        launch sleep 5 2>/dev/null
        alive sleep || dead=$((dead + 1))
        kill "$(pid_of sleep)"
      done
      kill "\${burners[@]}"
      rm -rf "$STATE"
      echo "$dead"`;
    const out = execFileSync('bash', ['-c', script, 'test', clusterScript], { encoding: 'utf8' });
    expect(Number(out.trim())).toBe(0);
  });
});
