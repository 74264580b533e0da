// deploy/aws/controller-iam-policy.json is the IAM policy docs/aws-deploy.md tells users to give
// the controller's role. It must allow every AWS call the AWS provider makes (read from its
// source: every `...Command` and `paginate...` imported from an @aws-sdk client), plus the
// permissions those calls need besides their own, and nothing else.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url).pathname;
const policyPath = join(root, 'deploy/aws/controller-iam-policy.json');
const providerSource = join(root, 'packages/provider-aws/src');

interface Statement {
  Sid: string;
  Effect: string;
  Action: string | string[];
  Resource: string | string[];
}
const policy = JSON.parse(readFileSync(policyPath, 'utf8')) as { Statement: Statement[] };
const list = (v: string | string[]) => (Array.isArray(v) ? v : [v]);
const allowed = new Set(policy.Statement.flatMap((s) => list(s.Action)));

const services: Record<string, string> = {
  'client-ec2': 'ec2',
  'client-iam': 'iam',
  'client-ssm': 'ssm',
  'client-sqs': 'sqs',
  'client-pricing': 'pricing',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

/** `service:Action` for every SDK command or paginator the provider imports. */
function calledActions(): Set<string> {
  const out = new Set<string>();
  const imports = /import\s*(type\s*)?\{([^}]*)\}\s*from\s*'@aws-sdk\/(client-[a-z0-9-]+)'/g;
  for (const file of sourceFiles(providerSource)) {
    for (const m of readFileSync(file, 'utf8').matchAll(imports)) {
      if (m[1]) continue;
      const service = services[m[3] ?? ''];
      if (service === undefined) throw new Error(`${file}: unknown AWS client ${m[3]}`);
      for (const raw of (m[2] ?? '').split(',')) {
        const name = raw.trim();
        if (name.startsWith('type ')) continue;
        const command = /^([A-Z]\w+)Command$/.exec(name)?.[1];
        const paginated = /^paginate([A-Z]\w+)$/.exec(name)?.[1];
        const action = command ?? paginated;
        if (action) out.add(`${service}:${action}`);
      }
    }
  }
  return out;
}

/**
 * Permissions a call needs besides its own action: CreateFleet launches with RunInstances and
 * passes the instance profile's role; creating with TagSpecifications needs CreateTags (EC2) or
 * TagInstanceProfile (IAM); putting a role in a profile passes it.
 */
const companions: Record<string, string[]> = {
  'ec2:CreateFleet': ['ec2:RunInstances', 'ec2:CreateTags', 'iam:PassRole'],
  'ec2:CreateLaunchTemplate': ['ec2:CreateTags'],
  'iam:CreateInstanceProfile': ['iam:TagInstanceProfile'],
  'iam:AddRoleToInstanceProfile': ['iam:PassRole'],
};

/** Upstream's interruption queue actions (`--interruption-queue`), allowed before that code is here. */
const interruption = ['sqs:GetQueueUrl', 'sqs:ReceiveMessage', 'sqs:DeleteMessage'];

describe('the AWS controller IAM policy (deploy/aws/controller-iam-policy.json)', () => {
  it('finds the provider calls it checks against', () => {
    const called = calledActions();
    expect(called.size).toBeGreaterThan(15);
    expect(called).toContain('ec2:CreateFleet');
    expect(called).toContain('iam:ListInstanceProfiles');
  });

  it('allows every AWS call the provider makes, and what each needs besides', () => {
    const needed = [...calledActions()].flatMap((a) => [a, ...(companions[a] ?? [])]);
    expect(needed.filter((a) => !allowed.has(a))).toEqual([]);
  });

  it('allows nothing the provider does not call or need', () => {
    const called = calledActions();
    const needed = new Set([
      ...called,
      ...[...called].flatMap((a) => companions[a] ?? []),
      ...interruption,
    ]);
    expect([...allowed].filter((a) => !needed.has(a))).toEqual([]);
  });

  it('has no wildcard action, and deletes EC2 resources only when tagged for the cluster', () => {
    expect([...allowed].filter((a) => a.includes('*'))).toEqual([]);
    const deleting = policy.Statement.filter((s) =>
      list(s.Action).some((a) => /:(Terminate|Delete)/.test(a) && a.startsWith('ec2:')),
    );
    expect(deleting.length).toBeGreaterThan(0);
    for (const s of deleting)
      expect(JSON.stringify(s)).toContain(
        '"aws:ResourceTag/kubernetes.io/cluster/${CLUSTER_NAME}":"owned"',
      );
  });

  it('uses only the placeholders docs/aws-deploy.md explains', () => {
    const text = readFileSync(policyPath, 'utf8');
    const placeholders = [...new Set([...text.matchAll(/\$\{([A-Z_]+)\}/g)].map((m) => m[1]))];
    const docs = readFileSync(join(root, 'docs/aws-deploy.md'), 'utf8');
    expect(placeholders.sort()).toEqual([
      'AWS_ACCOUNT_ID',
      'AWS_PARTITION',
      'AWS_REGION',
      'CLUSTER_NAME',
      'INTERRUPTION_QUEUE_NAME',
      'NODE_ROLE_NAME',
    ]);
    for (const p of placeholders) expect(docs).toContain('`${' + p + '}`');
  });
});
