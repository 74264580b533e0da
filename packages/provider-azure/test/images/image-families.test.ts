import { describe, expect, it } from 'vitest';
import {
  compareKubernetesVersions,
  nodeImageDefinitions,
  resolveImageFamily,
  type AKSNodeClassSpec,
} from '../../src/index.js';

const names = (spec: AKSNodeClassSpec, version: string) =>
  nodeImageDefinitions(spec, version).definitions.map((d) => d.definition);

describe('image family resolution by Kubernetes version', () => {
  it('resolves Ubuntu (and an unset family) to 24.04 from Kubernetes 1.34 and to 22.04 before', () => {
    expect(resolveImageFamily({}, '1.34.0')).toBe('Ubuntu2404');
    expect(resolveImageFamily({ imageFamily: 'Ubuntu' }, 'v1.36.3')).toBe('Ubuntu2404');
    expect(resolveImageFamily({ imageFamily: 'Ubuntu' }, '1.33.9')).toBe('Ubuntu2204');
    expect(resolveImageFamily({}, '1.33')).toBe('Ubuntu2204');
  });

  it('resolves AzureLinux to Azure Linux 3 from Kubernetes 1.32 and to 2 before', () => {
    expect(resolveImageFamily({ imageFamily: 'AzureLinux' }, '1.32.0')).toBe('AzureLinux3');
    expect(resolveImageFamily({ imageFamily: 'AzureLinux' }, '1.31.9')).toBe('AzureLinux2');
  });

  it('keeps an explicit Ubuntu version whatever the Kubernetes version', () => {
    expect(resolveImageFamily({ imageFamily: 'Ubuntu2204' }, '1.36.0')).toBe('Ubuntu2204');
    expect(resolveImageFamily({ imageFamily: 'Ubuntu2404' }, '1.30.0')).toBe('Ubuntu2404');
  });

  it('resolves Ubuntu with trusted launch to 22.04, and with FIPS to 20.04 (22.04 with both)', () => {
    const tl = { security: { trustedLaunch: { vtpm: true } } };
    expect(resolveImageFamily(tl, '1.36.0')).toBe('Ubuntu2204');
    expect(resolveImageFamily({ fipsMode: 'FIPS' }, '1.36.0')).toBe('Ubuntu2004');
    expect(resolveImageFamily({ fipsMode: 'FIPS', ...tl }, '1.36.0')).toBe('Ubuntu2204');
    // Trusted launch switched off is not trusted launch.
    expect(
      resolveImageFamily(
        { security: { trustedLaunch: { vtpm: false, secureBoot: false } } },
        '1.36.0',
      ),
    ).toBe('Ubuntu2404');
  });

  it('lists the definitions of images.json in priority order: Gen2, Gen1, then arm64', () => {
    expect(names({}, '1.34.0')).toEqual([
      '2404gen2containerd',
      '2404containerd',
      '2404gen2arm64containerd',
    ]);
    expect(names({ imageFamily: 'AzureLinux' }, '1.31.0')).toEqual(['V2gen2', 'V2', 'V2gen2arm64']);
    const gen1 = nodeImageDefinitions({}, '1.33.0').definitions[1];
    expect(gen1).toMatchObject({
      definition: '2204containerd',
      arch: 'amd64',
      hyperVGeneration: '1',
      communityGallery: 'AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2',
      sharedGalleryOnly: false,
    });
  });

  it('gives trusted launch its Gen2 amd64 variant and FIPS the shared-gallery-only images', () => {
    const tl = { security: { trustedLaunch: { secureBoot: true } } };
    expect(names({ imageFamily: 'AzureLinux', ...tl }, '1.33.0')).toEqual(['V3gen2TL']);
    expect(nodeImageDefinitions({ imageFamily: 'Ubuntu2404', ...tl }, '1.33.0').variant).toBe(
      'trustedLaunch',
    );
    const fips = nodeImageDefinitions({ imageFamily: 'AzureLinux', fipsMode: 'FIPS' }, '1.33.0');
    expect(fips.variant).toBe('fips');
    expect(fips.definitions.every((d) => d.sharedGalleryOnly)).toBe(true);
    // Ubuntu 22.04 has FIPS only together with trusted launch.
    expect(names({ imageFamily: 'Ubuntu2204', fipsMode: 'FIPS' }, '1.33.0')).toEqual([]);
    expect(
      nodeImageDefinitions({ imageFamily: 'Ubuntu2204', fipsMode: 'FIPS', ...tl }, '1.33.0'),
    ).toMatchObject({
      variant: 'fips+trustedLaunch',
      definitions: [{ definition: '2204gen2fipsTLcontainerd' }],
    });
  });

  it('refuses a Kubernetes version it cannot read, naming it', () => {
    expect(() => resolveImageFamily({ imageFamily: 'AzureLinux' }, 'latest')).toThrow(/"latest"/);
  });
});

describe('Kubernetes version order', () => {
  it('orders by major, minor, patch and ignores v prefixes and suffixes', () => {
    expect(compareKubernetesVersions('1.33.10', '1.33.9')).toBeGreaterThan(0);
    expect(compareKubernetesVersions('v1.34.0', '1.34.0-aks.1')).toBe(0);
    expect(compareKubernetesVersions('1.9.0', '1.10.0')).toBeLessThan(0);
  });
});
