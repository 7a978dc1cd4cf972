import type { ControlApi } from './control-api';
import { errorResponse, type MultiValue } from './http';
import { splitTarget } from './node-adapter';

/** The parts of a Lambda Function URL / API Gateway HTTP API (payload v2) event the API reads. */
export interface LambdaHttpEvent {
  version?: string;
  rawPath?: string;
  rawQueryString?: string;
  headers?: Record<string, string | undefined>;
  body?: string;
  isBase64Encoded?: boolean;
  requestContext?: {
    http?: { method?: string; path?: string };
    stage?: string;
    /** Set by a Function URL with IAM auth (or an IAM-authorized HTTP API route): who signed. */
    authorizer?: { iam?: { userArn?: string } };
  };
}

/** What the Lambda handler returns (payload v2 response). */
export interface LambdaHttpResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * A Lambda handler for the control API behind a Function URL or an API Gateway HTTP API
 * (payload format 2.0). Bodies may be base64; header names are matched in any case; a named
 * stage's prefix (`/prod/v1/...`) is removed from the path. Behind IAM auth, the signing
 * principal (`requestContext.authorizer.iam.userArn`) becomes the request's `principal`.
 */
export function toLambdaHandler(api: ControlApi): (event: LambdaHttpEvent) => Promise<LambdaHttpResult> {
  return async (event) => {
    try {
      const method = event.requestContext?.http?.method ?? 'GET';
      let path = event.rawPath ?? event.requestContext?.http?.path ?? '/';
      const stage = event.requestContext?.stage;
      if (stage && stage !== '$default' && path.startsWith(`/${stage}/`)) path = path.slice(stage.length + 1);
      const { query } = splitTarget(`?${event.rawQueryString ?? ''}`);
      const headers: Record<string, MultiValue> = Object.create(null);
      for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
      const body =
        event.body === undefined || event.body === null || event.body === ''
          ? undefined
          : event.isBase64Encoded
            ? Buffer.from(event.body, 'base64').toString('utf8')
            : event.body;
      // Lambda verified the signature: its principal is who acts (an operator action records it).
      const principal = event.requestContext?.authorizer?.iam?.userArn;
      const response = await api.handle({ method, path, query, headers, body, ...(principal ? { principal } : {}) });
      return { statusCode: response.status, headers: response.headers, body: response.body };
    } catch {
      const response = errorResponse(500, 'internal_error', 'internal error');
      return { statusCode: response.status, headers: response.headers, body: response.body };
    }
  };
}
