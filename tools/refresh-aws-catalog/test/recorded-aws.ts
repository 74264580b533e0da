/**
 * A local HTTP endpoint that answers EC2 (query protocol, XML) and Pricing (JSON 1.1) requests
 * with recorded responses from fixtures/, so the real SDK clients run their serialisation,
 * signing, paging and deserialisation with no network. Every request is recorded for assertions.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EC2Client } from '@aws-sdk/client-ec2';
import { PricingClient } from '@aws-sdk/client-pricing';

const fixture = (path: string) =>
  readFileSync(new URL(`./fixtures/${path}`, import.meta.url), 'utf8');

/** One request the endpoint saw: EC2 form parameters or the Pricing JSON body. */
export interface RecordedRequest {
  readonly api: string;
  readonly params: Record<string, unknown>;
}

export interface RecordedAws {
  readonly requests: RecordedRequest[];
  ec2(region?: string): EC2Client;
  pricing(region?: string): PricingClient;
  close(): Promise<void>;
}

/** Starts the endpoint. `failWith` makes every EC2 call answer with that EC2 error code. */
export async function startRecordedAws(options: { failWith?: string } = {}): Promise<RecordedAws> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const target = req.headers['x-amz-target'];
      if (typeof target === 'string') {
        const params = JSON.parse(body) as Record<string, unknown>;
        requests.push({ api: target, params });
        const filters = (params.Filters ?? []) as { Field: string; Value: string }[];
        const metal = filters.some(
          (f) => f.Field === 'productFamily' && f.Value.includes('bare metal'),
        );
        const file = metal
          ? 'get-products-metal-1.json'
          : params.NextToken === 'shared-2'
            ? 'get-products-shared-2.json'
            : 'get-products-shared-1.json';
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(fixture(`pricing/${file}`));
        return;
      }
      const params = Object.fromEntries(new URLSearchParams(body));
      requests.push({ api: String(params.Action), params });
      if (options.failWith !== undefined) {
        res.writeHead(400, { 'content-type': 'text/xml' });
        res.end(
          `<?xml version="1.0" encoding="UTF-8"?><Response><Errors><Error><Code>${options.failWith}</Code><Message>recorded failure</Message></Error></Errors><RequestID>r-1</RequestID></Response>`,
        );
        return;
      }
      const page = params.NextToken === undefined ? 1 : 2;
      const file =
        params.Action === 'DescribeInstanceTypes'
          ? `describe-instance-types-${page}.xml`
          : `describe-instance-type-offerings-${page}.xml`;
      res.writeHead(200, { 'content-type': 'text/xml;charset=UTF-8' });
      res.end(fixture(`ec2/${file}`));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'recorded' };
  return {
    requests,
    ec2: (region = 'us-east-1') => new EC2Client({ region, endpoint, credentials, maxAttempts: 1 }),
    pricing: (region = 'us-east-1') =>
      new PricingClient({ region, endpoint, credentials, maxAttempts: 1 }),
    close: () =>
      new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
