/** Serves the recorded fixtures: a local HTTP server for the Retail Prices API, an HttpClient for ARM. */
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import {
  createHttpHeaders,
  type HttpClient,
  type PipelineRequest,
  type PipelineResponse,
} from '@azure/core-rest-pipeline';

/** Text of a fixture file. */
export function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
}

/** A running local Retail Prices API; `requests` records every URL asked for. */
export interface RetailPricesServer {
  readonly endpoint: string;
  readonly requests: string[];
  close(): Promise<void>;
}

/** Serves page 1 for the first request and page 2 for `$skip=100`, like the real API's paging. */
export async function startRetailPricesServer(): Promise<RetailPricesServer> {
  const requests: string[] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const page =
      (req.url ?? '').includes('%24skip=100') || (req.url ?? '').includes('$skip=100') ? 2 : 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(fixture(`retail-prices-eastus-page${page}.json`).replaceAll('{{base}}', base));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint: `${base}/api/retail/prices`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

/** An HttpClient answering ARM resource-SKU list calls from the fixtures (page 2 for `$skiptoken=page2`). */
export function recordedArmClient(requests: string[]): HttpClient {
  return {
    async sendRequest(request: PipelineRequest): Promise<PipelineResponse> {
      requests.push(request.url);
      const page = request.url.includes('skiptoken=page2') ? 2 : 1;
      return {
        request,
        status: 200,
        headers: createHttpHeaders({ 'content-type': 'application/json' }),
        bodyAsText: fixture(`resource-skus-eastus-page${page}.json`),
      };
    },
  };
}

/** A credential that hands out a fixed token (no identity calls). */
export const fakeCredential = {
  getToken: async () => ({ token: 'recorded', expiresOnTimestamp: Date.now() + 3_600_000 }),
};
