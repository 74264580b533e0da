/** How output names where a simulation or catalog runs: a cloud and its region. */
import { SIM_REGION } from '../clouds/sim.js';

/**
 * `azure eastus`, `aws us-east-1`; `sim` alone for the sim cloud's placeholder region (it has
 * zones but no region, so `sim sim` would name a region that does not exist).
 */
export function cloudPlace(cloud: { readonly name: string; readonly region: string }): string {
  return cloud.name === 'sim' && cloud.region === SIM_REGION
    ? cloud.name
    : `${cloud.name} ${cloud.region}`;
}
