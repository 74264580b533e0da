/**
 * ARM's error envelope: every failed request (and failed long-running operation) carries
 * `{error: {code, message, target?, details?}}`, the shape the Azure SDKs turn into RestError.
 */

/** The `error` object of an ARM error response. */
export interface ArmErrorBody {
  readonly code: string;
  readonly message: string;
  readonly target?: string;
}

/** An error the emulator answers with: HTTP status, ARM code and message, optional headers. */
export class ArmError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Readonly<Record<string, string>>;
  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ArmError';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }

  /** The JSON body ARM sends. */
  body(): { error: ArmErrorBody } {
    return { error: { code: this.code, message: this.message } };
  }
}

/** 400 InvalidParameter naming the property, as ARM reports a bad or missing request field. */
export function invalidParameter(target: string, message: string): ArmError {
  return new ArmError(400, 'InvalidParameter', `${message} Target: '${target}'.`);
}

/** 404 ResourceNotFound for an ARM resource ID. */
export function resourceNotFound(type: string, rg: string, name: string): ArmError {
  return new ArmError(
    404,
    'ResourceNotFound',
    `The Resource '${type}/${name}' under resource group '${rg}' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix`,
  );
}
