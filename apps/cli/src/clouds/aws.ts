/**
 * `--cloud aws`: the AWS provider's EC2 instance-type catalog and prices for a region
 * (@karpenter-ts/provider-aws), its EC2NodeClass validation, and the getting-started default
 * NodePool and EC2NodeClass.
 */
import {
  AwsGroup,
  AwsRestrictedLabelDomains,
  AwsWellKnownLabels,
  defaultAwsNodePool,
  defaultEC2NodeClass,
  DefaultSpotPriceFactor,
  EC2NodeClassKind,
  getAwsInstanceTypes,
  validateEC2NodeClass,
  type EC2NodeClass,
} from '@karpenter-ts/provider-aws';
import type { InstanceType } from '@karpenter-ts/cloudprovider';
import { CliError } from '../errors.js';
import type { KubeObject } from '../manifests/document.js';
import { allowUndefinedLabels, type Cloud, type NodeClassProblem } from './cloud.js';
import { chooseAwsLaunch } from './aws-launch.js';

/** Creates the AWS cloud for an EC2 region (e.g. `us-east-1`). */
export function awsCloud(region: string): Cloud {
  const cache = new Map<string, readonly InstanceType[]>();
  const cloud: Cloud = {
    name: 'aws',
    region,
    nodeClassKind: { group: AwsGroup, kind: EC2NodeClassKind },
    instanceTypes(nodeClass) {
      const resolved = (nodeClass ?? defaultEC2NodeClass()) as unknown as EC2NodeClass;
      const key = JSON.stringify([resolved.spec ?? {}, resolved.status ?? {}]);
      let types = cache.get(key);
      if (!types) {
        try {
          types = getAwsInstanceTypes({ region, nodeClass: resolved });
        } catch (cause) {
          throw new CliError(`${(cause as Error).message}`, 1, { cause });
        }
        if (!types.some((it) => it.offerings.some((o) => o.available))) {
          throw new CliError(
            `--region: the AWS catalog has no priced instance types for region ${JSON.stringify(region)}`,
          );
        }
        cache.set(key, types);
      }
      return types;
    },
    defaults: () => ({
      nodePool: defaultAwsNodePool(),
      nodeClass: defaultEC2NodeClass() as unknown as KubeObject,
      source: 'Karpenter AWS getting-started default NodePool and EC2NodeClass',
    }),
    validateNodeClass: (object): NodeClassProblem[] => {
      const problems = validateEC2NodeClass(object).map((v) => ({
        path: v.path,
        message: v.message,
      }));
      // The CRD does not require spec, but every EC2NodeClass setting Karpenter needs is in it.
      if ((object.spec ?? null) === null)
        problems.push({
          path: 'spec',
          message:
            'required: amiSelectorTerms, subnetSelectorTerms, securityGroupSelectorTerms and a role or instanceProfile (the apiserver accepts an EC2NodeClass without spec, but Karpenter cannot launch from it)',
        });
      return problems;
    },
    chooseLaunch: (options, requirements) =>
      chooseAwsLaunch(options, requirements, allowUndefinedLabels(cloud)),
    wellKnownLabels: AwsWellKnownLabels,
    restrictedLabelDomains: AwsRestrictedLabelDomains,
    // The shipped EC2 data has on-demand prices only; the provider models spot (pricing.ts).
    spotPricing: `spot = ${DefaultSpotPriceFactor} × on-demand (modelled)`,
  };
  return cloud;
}
