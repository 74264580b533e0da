/**
 * Whether offerings can serve one NodeClaim's requirements, asked for many offerings at once:
 * choosing a launch walks every offering of every instance-type option (hundreds of types, a
 * few offerings each), and most offerings pin the same few (zone, capacity type) pairs. The
 * answer depends on the offering's requirements alone (upstream `Offerings.Compatible`), so it
 * is computed once per distinct set of them.
 */
import {
  requirementSignature,
  WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
  type Requirements,
} from '@karpenter-ts/scheduling';
import type { Offering } from './types.js';

/** Each offering's requirements as text (offerings are not changed after they are built). */
const signatures = new WeakMap<Offering, string>();

function offeringSignature(o: Offering): string {
  let sig = signatures.get(o);
  if (sig === undefined) {
    sig = '';
    for (const r of o.requirements) sig += requirementSignature(r);
    signatures.set(o, sig);
  }
  return sig;
}

/**
 * Compatibility of offerings with `requirements`, the keys in `allowUndefined` (default: the
 * well-known labels) being allowed although the requirements leave them undefined: the same
 * answers as `isOfferingCompatible`, remembered per distinct offering requirements. Availability
 * is not part of it.
 */
export class OfferingCompatibility {
  readonly #results = new Map<string, boolean>();

  constructor(
    private readonly requirements: Requirements,
    private readonly allowUndefined: ReadonlySet<string> = WELL_KNOWN_LABELS_ALLOW_UNDEFINED,
  ) {}

  /** Whether `offering` can serve the requirements. */
  compatible(offering: Offering): boolean {
    const sig = offeringSignature(offering);
    let ok = this.#results.get(sig);
    if (ok === undefined) {
      ok = this.requirements.isCompatible(offering.requirements, this.allowUndefined);
      this.#results.set(sig, ok);
    }
    return ok;
  }
}
