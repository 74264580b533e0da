/**
 * The layer between the SDK and moto: an HTTP server on a loopback port that forwards every
 * request to moto unchanged, except the few it answers or rewrites itself (README, "Gaps"):
 * EC2 CreateFleet `instant`, EC2 DescribeSpotPriceHistory, EC2 capacity reservations
 * (DescribeCapacityReservations, and the reservation of instances in DescribeInstances and
 * TerminateInstances), SSM reads of the EKS public
 * parameters, and scripted faults.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { createFleet, type FleetContext } from './create-fleet.js';
import { QueryParams, ec2Error, jsonError, queryError } from './query-protocol.js';

/** Where the emulator keeps `/aws/service/...` parameters in moto (which refuses names under /aws). */
export const PublicParameterPrefix = '/karpenter-ts-emulator';

/** SSM names the emulator serves from its own namespace: the ones the EKS AMI aliases read. */
export function isEmulatedPublicParameter(name: string): boolean {
  return name.startsWith('/aws/service/eks/') || name.startsWith('/aws/service/bottlerocket/');
}

/** One request as the emulator saw it (inspection in tests). */
export interface RecordedRequest {
  readonly service: string;
  readonly action: string;
  /** The decoded form of a query-protocol request (EC2, IAM); undefined for JSON services. */
  readonly params?: URLSearchParams;
}

/** What the proxy needs from the emulator. */
export interface ProxyContext extends FleetContext {
  readonly motoUrl: string;
  readonly now: () => Date;
  readonly requests: RecordedRequest[];
}

/** The service name from a SigV4 `Authorization` header (`Credential=AKID/date/region/ec2/aws4_request`). */
function serviceOf(req: IncomingMessage): string {
  const m = /Credential=[^/]+\/[^/]+\/[^/]+\/([^/]+)\//.exec(req.headers.authorization ?? '');
  return m?.[1] ?? '';
}

function actionOf(service: string, req: IncomingMessage, body: string): string {
  const target = req.headers['x-amz-target'];
  if (typeof target === 'string') return target.slice(target.indexOf('.') + 1);
  if (service === 'ec2' || service === 'iam' || service === 'sqs')
    return new URLSearchParams(body).get('Action') ?? '';
  return '';
}

function errorBody(service: string, code: string, message: string): { type: string; body: string } {
  if (service === 'ec2') return { type: 'text/xml', body: ec2Error(code, message) };
  if (service === 'iam') return { type: 'text/xml', body: queryError(code, message) };
  return { type: 'application/x-amz-json-1.1', body: jsonError(code, message) };
}

/** Renames emulated public parameter names in an SSM request body to their stored names. */
function rewriteSsmRequest(body: string): string {
  if (body === '') return body;
  const json = JSON.parse(body) as Record<string, unknown>;
  const map = (n: unknown): unknown =>
    typeof n === 'string' && isEmulatedPublicParameter(n) ? PublicParameterPrefix + n : n;
  if ('Name' in json) json['Name'] = map(json['Name']);
  if (Array.isArray(json['Names'])) json['Names'] = json['Names'].map(map);
  if ('Path' in json) json['Path'] = map(json['Path']);
  return JSON.stringify(json);
}

async function forward(
  ctx: ProxyContext,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  rewriteResponse?: (s: string) => string,
): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (typeof v === 'string' && k !== 'host' && k !== 'content-length' && k !== 'connection')
      headers[k] = v;
  const upstream = await fetch(ctx.motoUrl + (req.url ?? '/'), {
    method: req.method ?? 'POST',
    headers,
    ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body }),
  });
  let out = Buffer.from(await upstream.arrayBuffer());
  if (rewriteResponse) out = Buffer.from(rewriteResponse(out.toString('utf8')));
  const resHeaders: Record<string, string> = {};
  upstream.headers.forEach((v, k) => {
    if (
      k !== 'content-length' &&
      k !== 'transfer-encoding' &&
      k !== 'content-encoding' &&
      k !== 'connection'
    )
      resHeaders[k] = v;
  });
  res.writeHead(upstream.status, { ...resHeaders, 'content-length': String(out.length) });
  res.end(out);
}

async function handle(ctx: ProxyContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  let body = Buffer.concat(chunks);
  const text = body.toString('utf8');
  const service = serviceOf(req);
  const action = actionOf(service, req, text);
  ctx.requests.push({
    service,
    action,
    ...(service === 'ec2' || service === 'iam' ? { params: new URLSearchParams(text) } : {}),
  });

  for (const effect of ctx.faults.takeCall(service, action)) {
    if (effect.kind === 'delay') await new Promise((r) => setTimeout(r, effect.ms));
    else {
      const e = errorBody(service, effect.code, effect.message);
      res.writeHead(effect.status, { 'content-type': e.type });
      res.end(e.body);
      return;
    }
  }

  const send = (xml: string): void => {
    res.writeHead(200, { 'content-type': 'text/xml;charset=UTF-8' });
    res.end(xml);
  };
  if (service === 'ec2' && action === 'CreateFleet') {
    const p = new QueryParams(new URLSearchParams(text));
    if (p.get('Type') === 'instant') return send(await createFleet(p, ctx));
  }
  if (service === 'ec2' && action === 'DescribeCapacityReservations') {
    const out = ctx.capacityReservations.describe(new QueryParams(new URLSearchParams(text)));
    if ('xml' in out) return send(out.xml);
    res.writeHead(400, { 'content-type': 'text/xml' });
    res.end(ec2Error(out.error.code, out.error.message));
    return;
  }
  if (service === 'ec2' && action === 'DescribeInstances')
    return forward(ctx, req, res, body, (s) => ctx.capacityReservations.annotateInstances(s));
  if (service === 'ec2' && action === 'TerminateInstances')
    ctx.capacityReservations.released(
      new QueryParams(new URLSearchParams(text)).values('InstanceId'),
    );
  if (service === 'ec2' && action === 'DescribeSpotPriceHistory')
    return send(ctx.spotPrices.describe(new QueryParams(new URLSearchParams(text)), ctx.now()));
  if (service === 'ssm' && /^(GetParameter|GetParameters|GetParametersByPath)$/.test(action)) {
    body = Buffer.from(rewriteSsmRequest(text));
    return forward(ctx, req, res, body, (s) =>
      s.split(`${PublicParameterPrefix}/aws/`).join('/aws/'),
    );
  }
  return forward(ctx, req, res, body);
}

/** Starts the proxy on a free loopback port; resolves with the server and its URL. */
export async function startProxy(ctx: ProxyContext): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    handle(ctx, req, res).catch((err: unknown) => {
      const e = errorBody(
        serviceOf(req),
        'InternalError',
        `aws-emulator: ${(err as Error).stack ?? String(err)}`,
      );
      if (!res.headersSent) res.writeHead(500, { 'content-type': e.type });
      res.end(e.body);
    });
  });
  // The SDK keeps idle sockets open without limit; closing them after Node's default 5 s races
  // a client's next request on the same socket (ECONNRESET). stop() closes them all.
  server.keepAliveTimeout = 30 * 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port assigned');
  return { server, url: `http://127.0.0.1:${address.port}` };
}
