/**
 * The error body of the service: `{ message, errorCode?, metadata? }`.
 * Every failure the sandbox answers, whatever its cause, has this shape.
 */
export interface ErrorBody {
  message: string;
  errorCode?: string;
  metadata?: Record<string, unknown>;
}

/** Error codes the sandbox answers with. `OBJECT_NOT_FOUND` and `INVALID_FIELD_VALUE` are the original service's. */
export const ErrorCode = {
  OBJECT_NOT_FOUND: 'OBJECT_NOT_FOUND',
  INVALID_FIELD_VALUE: 'INVALID_FIELD_VALUE',
  INVALID_API_TOKEN: 'INVALID_API_TOKEN',
  ADMIN_KEY_REQUIRED: 'ADMIN_KEY_REQUIRED',
  INVALID_ACCESS_TOKEN: 'INVALID_ACCESS_TOKEN',
  INVALID_LINK_TOKEN: 'INVALID_LINK_TOKEN',
  LINK_TOKEN_USED: 'LINK_TOKEN_USED',
  LINK_TOKEN_EXPIRED: 'LINK_TOKEN_EXPIRED',
  INVALID_PUBLIC_TOKEN: 'INVALID_PUBLIC_TOKEN',
  PUBLIC_TOKEN_USED: 'PUBLIC_TOKEN_USED',
  PUBLIC_TOKEN_EXPIRED: 'PUBLIC_TOKEN_EXPIRED',
  CONNECTION_LIMIT_REACHED: 'CONNECTION_LIMIT_REACHED',
  RECORD_LIMIT_REACHED: 'RECORD_LIMIT_REACHED',
  CONNECTION_SYNCING: 'CONNECTION_SYNCING',
  INTEGRATION_NOT_SUPPORTED: 'INTEGRATION_NOT_SUPPORTED',
  WEBHOOK_ALREADY_EXISTS: 'WEBHOOK_ALREADY_EXISTS',
  WEBHOOK_NOT_FOUND: 'WEBHOOK_NOT_FOUND',
  DELIVERY_IN_PROGRESS: 'DELIVERY_IN_PROGRESS',
  INVALID_JSON: 'INVALID_JSON',
  BAD_REQUEST: 'BAD_REQUEST',
  HEADERS_TOO_LARGE: 'HEADERS_TOO_LARGE',
  HOST_NOT_ALLOWED: 'HOST_NOT_ALLOWED',
  REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  ROUTE_NOT_FOUND: 'ROUTE_NOT_FOUND',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
  RATE_LIMITED: 'RATE_LIMITED',
  INJECTED_FAULT: 'INJECTED_FAULT',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * An error answered to the caller. Routes throw it; the core renders it into the error body.
 *
 * @example throw ApiError.notFound('Connection', connectionId)
 */
export class ApiError extends Error {
  readonly status: number;
  readonly errorCode: ErrorCode;
  readonly metadata: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(status: number, errorCode: ErrorCode, message: string, metadata?: Record<string, unknown>, headers?: Record<string, string>) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.errorCode = errorCode;
    this.metadata = metadata;
    this.headers = headers;
  }

  /** A 400 naming the field at fault (dotted path, e.g. `webhook.webhookUrl`). */
  static invalidField(field: string, message: string, metadata: Record<string, unknown> = {}): ApiError {
    return new ApiError(400, ErrorCode.INVALID_FIELD_VALUE, message, { field, ...metadata });
  }

  /** A 404 for an object of the given kind that does not exist (or is not the caller's). */
  static notFound(kind: string, id: string, field?: string): ApiError {
    return new ApiError(404, ErrorCode.OBJECT_NOT_FOUND, `${kind} ${JSON.stringify(id)} not found`, {
      objectType: kind,
      id,
      ...(field ? { field } : {}),
    });
  }

  /** A 500: an unexpected exception, which is a bug of the sandbox. */
  static internal(): ApiError {
    return new ApiError(500, ErrorCode.INTERNAL_ERROR, 'internal sandbox error (a bug: please report it)');
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { message: this.message, errorCode: this.errorCode };
    if (this.metadata) body.metadata = this.metadata;
    return body;
  }
}

/** A mistake in how the sandbox was configured or started (bad option, bad fixture file). Not an HTTP answer. */
export class SandboxConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxConfigError';
  }
}
