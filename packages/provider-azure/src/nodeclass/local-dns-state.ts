/**
 * `status.localDNSState` of an AKSNodeClass from `spec.localDNS.mode` (as upstream
 * `Azure/karpenter-provider-azure`'s status controller): Required -> Enabled, Disabled (or no mode)
 * -> Disabled, Preferred -> decided by upstream from the AKS cluster's own LocalDNS gates and kept
 * Enabled once Enabled.
 *
 * We differ on Preferred: this provider does not read the managed cluster's gates, so a Preferred
 * NodeClass not already Enabled resolves to Disabled (the safe side: no 4-vCPU filter, no LocalDNS
 * bootstrap), with a reason saying so; one already Enabled stays Enabled, as upstream's is sticky.
 */
import type { AKSNodeClassSpec, AKSNodeClassStatus } from './types.js';

/** A resolved LocalDNS state and why. */
export interface LocalDNSResolution {
  readonly state: NonNullable<AKSNodeClassStatus['localDNSState']>;
  /**
   * CamelCase reason for the `LocalDNSReady` condition (always True): undefined when the mode
   * decides it plainly (Required, Disabled, unset); `PreferredResolvedDisabled` or
   * `PreferredStaysEnabled` for Preferred.
   */
  readonly reason?: 'PreferredResolvedDisabled' | 'PreferredStaysEnabled';
  /** Why, for the Preferred cases; '' otherwise. */
  readonly message: string;
}

/** Resolves the state of `spec.localDNS.mode` given the state now in status (see the module comment). */
export function resolveLocalDNSState(
  spec: Pick<AKSNodeClassSpec, 'localDNS'>,
  current: AKSNodeClassStatus['localDNSState'],
): LocalDNSResolution {
  const mode = spec.localDNS?.mode;
  if (mode === 'Required') return { state: 'Enabled', message: '' };
  if (mode !== 'Preferred') return { state: 'Disabled', message: '' };
  if (current === 'Enabled')
    return {
      state: 'Enabled',
      reason: 'PreferredStaysEnabled',
      message: 'LocalDNS mode Preferred stays Enabled once Enabled',
    };
  return {
    state: 'Disabled',
    reason: 'PreferredResolvedDisabled',
    message:
      'LocalDNS mode Preferred resolves to Disabled: this controller does not read the AKS cluster LocalDNS gates upstream decides Preferred from; set mode Required to enable LocalDNS',
  };
}
