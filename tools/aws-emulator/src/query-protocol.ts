/**
 * The pieces of AWS's wire protocols the emulator's own answers need: reading an EC2 query
 * request (`Action=...&Foo.1.Bar=...`), writing EC2 XML responses and errors, and the JSON
 * protocol's errors (SSM). Never used to talk to moto: the emulator does that with the SDK.
 */
import { randomUUID } from 'node:crypto';

/** A decoded EC2 query request: `get('Type')`, `list('LaunchTemplateConfigs')`. */
export class QueryParams {
  readonly #p: URLSearchParams;
  readonly #prefix: string;
  constructor(params: URLSearchParams, prefix = '') {
    this.#p = params;
    this.#prefix = prefix;
  }
  /** The value at `<prefix><key>`, or undefined. */
  get(key: string): string | undefined {
    return this.#p.get(this.#prefix + key) ?? undefined;
  }
  /** The sub-structure at `<prefix><key>.`. */
  at(key: string): QueryParams {
    return new QueryParams(this.#p, `${this.#prefix}${key}.`);
  }
  /** The members `<key>.1`, `<key>.2`, ... as sub-structures, in order, until the first gap. */
  list(key: string): QueryParams[] {
    const out: QueryParams[] = [];
    for (let i = 1; ; i++) {
      const head = `${this.#prefix}${key}.${i}`;
      let present = this.#p.has(head);
      if (!present) for (const k of this.#p.keys()) if (k.startsWith(`${head}.`)) present = true;
      if (!present) return out;
      out.push(new QueryParams(this.#p, `${head}.`));
    }
  }
  /** The scalar members `<key>.1`, `<key>.2`, ... */
  values(key: string): string[] {
    const out: string[] = [];
    for (let i = 1; ; i++) {
      const v = this.#p.get(`${this.#prefix}${key}.${i}`);
      if (v === null) return out;
      out.push(v);
    }
  }
}

/** XML-escapes text content. */
export function xmlText(s: string | number): string {
  return String(s)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** `<name>text</name>`, or '' when `value` is undefined. */
export function xmlElement(name: string, value: string | number | undefined): string {
  return value === undefined ? '' : `<${name}>${xmlText(value)}</${name}>`;
}

/** A successful EC2 response document for `action`, `body` being its inner XML. */
export function ec2Response(action: string, body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${action}Response xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>${randomUUID()}</requestId>${body}</${action}Response>`;
}

/** An EC2 error document (`<Response><Errors><Error>`), as EC2 answers any failed call. */
export function ec2Error(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${xmlText(code)}</Code><Message>${xmlText(message)}</Message></Error></Errors><RequestID>${randomUUID()}</RequestID></Response>`;
}

/** An awsQuery error document (IAM). */
export function queryError(code: string, message: string): string {
  return `<ErrorResponse><Error><Type>Sender</Type><Code>${xmlText(code)}</Code><Message>${xmlText(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`;
}

/** A JSON-protocol error body (SSM). */
export function jsonError(code: string, message: string): string {
  return JSON.stringify({ __type: code, message });
}
