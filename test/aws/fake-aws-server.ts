import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One HTTP request as the AWS SDK sent it. */
export interface CapturedRequest {
  method: string;
  /** The path, URL-decoded, without the query. */
  path: string;
  /** The raw path as sent (percent-encoded). */
  rawPath: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the fake service answers. */
export interface FakeResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** A local HTTP server standing in for an AWS service endpoint: records requests, answers as told. */
export class FakeAwsServer {
  readonly requests: CapturedRequest[] = [];
  private server: Server | undefined;
  private responder: (request: CapturedRequest) => FakeResponse;

  constructor(responder: (request: CapturedRequest) => FakeResponse) {
    this.responder = responder;
  }

  /** Replaces how the server answers. */
  respond(responder: (request: CapturedRequest) => FakeResponse): void {
    this.responder = responder;
  }

  /** Starts on 127.0.0.1 at a random port; resolves to the endpoint URL. */
  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const captured: CapturedRequest = {
          method: req.method ?? '',
          path: decodeURIComponent(url.pathname),
          rawPath: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.requests.push(captured);
        const answer = this.responder(captured);
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(answer.body ?? '');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve, reject) => this.server?.close((e) => (e ? reject(e) : resolve())));
  }
}

/** Static fake credentials: the requests are signed for real, with keys nobody owns. */
export const FAKE_CREDENTIALS = { accessKeyId: 'AKIDFAKEFAKEFAKE', secretAccessKey: 'fake-secret-key' };

/** An AWS JSON error answer the way restJson services send it. */
export function awsError(status: number, type: string, message: string): FakeResponse {
  return {
    status,
    headers: { 'x-amzn-errortype': type, 'x-amzn-requestid': 'req-fake' },
    body: JSON.stringify({ Message: message }),
  };
}
