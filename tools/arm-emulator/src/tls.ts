/**
 * A throw-away TLS identity for the emulator: a self-signed certificate for `localhost` and
 * `127.0.0.1`, generated at start (never stored). Clients trust it by passing its PEM as their
 * CA (the Azure SDKs: `tlsOptions: {ca}`), so the SDKs' bearer-token policy, which refuses plain
 * HTTP, runs unchanged.
 */
import { generate } from 'selfsigned';

/** PEM key and certificate. */
export interface TlsIdentity {
  readonly key: string;
  readonly cert: string;
}

/** Generates a P-256 self-signed certificate valid for a day for localhost / 127.0.0.1 / ::1. */
export async function generateTlsIdentity(): Promise<TlsIdentity> {
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: 'karpenter-ts arm-emulator' }], {
    keyType: 'ec',
    curve: 'P-256',
    notBeforeDate: new Date(now - 60_000),
    notAfterDate: new Date(now + 24 * 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}
