/**
 * Demo stand-ins for the HTTP services the examples call (mailer, inventory, payments, …), so the
 * deployed examples run end to end without real back ends. One Lambda Function URL serves them
 * all (their paths do not collide). Answers are canned and deterministic: an id is derived from
 * the request's `Idempotency-Key`, so a repeated request gets the same answer, as real
 * idempotent APIs do. Nothing is stored; nothing is sent anywhere.
 *
 * Deploy your own services instead with `-c servicesUrl=https://...` (see the README).
 */
import { createHash } from 'node:crypto';

interface UrlEvent {
  rawPath?: string;
  body?: string;
  isBase64Encoded?: boolean;
  headers?: Record<string, string | undefined>;
  requestContext?: { http?: { method?: string } };
}

interface Answer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

const json = (statusCode: number, body: unknown): Answer => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** A short stable id: `prefix_` + hash of the idempotency key (or of the request). */
function idFor(prefix: string, seed: string): string {
  return `${prefix}_${createHash('sha256').update(seed).digest('hex').slice(0, 12)}`;
}

/** The demo customers of an invoice period. */
function customers(period: string) {
  return Array.from({ length: 5 }, (_, i) => ({
    customerId: `cus-${String(i + 1).padStart(3, '0')}`,
    email: `customer${i + 1}@example.com`,
    amountCents: 1_000 * (i + 1),
    currency: 'EUR',
    period,
  })).map(({ period: _period, ...customer }) => customer);
}

export async function handler(event: UrlEvent): Promise<Answer> {
  const method = event.requestContext?.http?.method ?? 'GET';
  const path = event.rawPath ?? '/';
  const rawBody = event.body && event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString() : event.body;
  const seed = event.headers?.['idempotency-key'] ?? `${method} ${path} ${rawBody ?? ''}`;
  let body: Record<string, unknown> = {};
  try {
    body = rawBody ? (JSON.parse(rawBody) as Record<string, unknown>) : {};
  } catch {
    return json(400, { error: 'invalid JSON' });
  }
  const route = `${method} ${path}`;

  if (route === 'POST /messages') return json(202, { messageId: idFor('msg', seed) });
  if (route === 'POST /purchase-orders') return json(201, { purchaseOrderId: idFor('po', seed) });
  if (route === 'POST /charges') {
    return json(201, { chargeId: idFor('ch', seed), amountCents: body.amountCents });
  }
  if (route === 'POST /refunds') return json(201, { refundId: idFor('re', seed) });
  if (route === 'POST /reservations') return json(201, { reservationId: idFor('res', seed) });
  if (method === 'POST' && /^\/reservations\/[^/]+\/release$/.test(path)) return json(200, { released: true });
  if (method === 'GET' && /^\/orders\/[^/]+$/.test(path)) return json(200, { cancelled: false });
  const period = method === 'GET' ? path.match(/^\/periods\/([^/]+)\/customers$/) : null;
  if (period) return json(200, customers(decodeURIComponent(period[1] ?? '')));
  if (route === 'POST /invoices') return json(201, { invoiceNumber: idFor('inv', seed) });
  if (method === 'GET' && /^\/users\/[^/]+$/.test(path)) return json(200, { emailConfirmed: false });
  if (route === 'POST /tickets') return json(201, { ticketId: idFor('tkt', seed) });
  if (route === 'POST /reports') {
    return json(200, { rows: 3, content: 'customer,amount\ncus-001,1000\ncus-002,2000\ncus-003,3000\n' });
  }
  if (method === 'PUT' && path.startsWith('/reports/')) {
    return json(200, { url: `https://reports.example.com${path}` });
  }
  if (route === 'POST /authorizations') return json(201, { authorizationId: idFor('auth', seed) });
  if (method === 'POST' && /^\/authorizations\/[^/]+\/capture$/.test(path)) {
    return json(200, { chargeId: idFor('ch', seed) });
  }
  const approval = method === 'GET' ? path.match(/^\/approvals\/([^/]+)$/) : null;
  if (approval) {
    return {
      statusCode: 200,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body:
        `Demo approval page for callback ${decodeURIComponent(approval[1] ?? '')}.\n` +
        'Complete it through the control API: POST /v1/callbacks/{callbackId}/succeed with ' +
        '{"result": {"approvedBy": "you@example.com"}}, or /fail to reject.\n',
    };
  }
  return json(404, { error: `no demo route for ${route}` });
}
