/**
 * AKS's node OS maintenance window as upstream `Azure/karpenter-provider-azure` reads it: the
 * ConfigMap `upcoming-maintenance-window` in the controller's system namespace, keys
 * `aksManagedNodeOSUpgradeSchedule-start` and `-end` (RFC 3339). Node image versions move to the
 * newest only while the window is open; no ConfigMap, or no start/end key, means always open.
 *
 * The controllers' KubeClient has no ConfigMap kind (its caches cover what the core controllers
 * watch), so the ConfigMap is read with one GET through the operator's raw API request function.
 */
import { isNotFound } from '@karpenter-ts/controllers';
import type { KubeApiGet } from '../../api-get.js';

/** Name of the ConfigMap. */
export const MaintenanceWindowConfigMap = 'upcoming-maintenance-window';
/** Key of the window's start (RFC 3339). */
export const MaintenanceWindowStartKey = 'aksManagedNodeOSUpgradeSchedule-start';
/** Key of the window's end (RFC 3339). */
export const MaintenanceWindowEndKey = 'aksManagedNodeOSUpgradeSchedule-end';

/**
 * Whether node images may move to new versions at `nowMs` (ms since the epoch) given the
 * ConfigMap's `data` (undefined: no ConfigMap): true without a start or end key, else when
 * start <= now < end. Raises Error naming the key when a value is not an RFC 3339 time.
 */
export function maintenanceWindowOpen(
  data: Readonly<Record<string, string>> | undefined,
  nowMs: number,
): boolean {
  const start = data?.[MaintenanceWindowStartKey]?.trim();
  const end = data?.[MaintenanceWindowEndKey]?.trim();
  if (!start || !end) return true;
  const parse = (key: string, value: string): number => {
    const ms = Date.parse(value);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(ms))
      throw new Error(
        `ConfigMap ${MaintenanceWindowConfigMap}: ${key} must be an RFC 3339 time, got ${JSON.stringify(value)}`,
      );
    return ms;
  };
  const from = parse(MaintenanceWindowStartKey, start);
  const to = parse(MaintenanceWindowEndKey, end);
  return from <= nowMs && nowMs < to;
}

/**
 * Reads the ConfigMap's `data` from namespace `namespace` through `request`; undefined when it
 * does not exist. Other API errors (e.g. 403 without RBAC) are raised.
 */
export async function readMaintenanceWindow(
  request: KubeApiGet,
  namespace: string,
): Promise<Record<string, string> | undefined> {
  try {
    const cm = (await request(
      'GET',
      `/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps/${MaintenanceWindowConfigMap}`,
    )) as { data?: Record<string, string> };
    return cm.data ?? {};
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
