/**
 * Payments: a durable function of its own, deployed separately and started by the order saga
 * with `context.invoke`. It authorizes the card, then captures the amount. A declined card fails
 * the run at once with code `payment_declined`; the invoking run gets that error as an
 * `InvokeError`.
 */
import {
  type DurableLambdaHandler,
  NonRetriableError,
  type RetryPolicy,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { callJson, expectOk, requireEnv } from '../shared/http';

/** What the saga sends. */
export interface PaymentRequest {
  orderId: string;
  customerId: string;
  amountCents: number;
  currency: string;
}

/** Inputs to try the function with on its own (the order saga invokes it): the dev server offers them. */
export const samples: ReadonlyArray<{ name: string; input: PaymentRequest }> = [
  {
    name: 'a 45 EUR payment',
    input: { orderId: 'order-2001', customerId: 'cus-42', amountCents: 4500, currency: 'EUR' },
  },
];

/** What the payments run returns to the saga. */
export interface PaymentResult {
  chargeId: string;
  amountCents: number;
}

/** The card gateway: it deduplicates by idempotency key. */
export interface CardGateway {
  authorize(
    request: PaymentRequest,
    idempotencyKey: string,
  ): Promise<{ approved: true; authorizationId: string } | { approved: false; reason: string }>;
  capture(authorizationId: string, amountCents: number, idempotencyKey: string): Promise<{ chargeId: string }>;
}

export interface PaymentServices {
  gateway: CardGateway;
}

/** A declined card: never retried (a NonRetriableError), stored with its own code. */
export class PaymentDeclinedError extends NonRetriableError {
  override readonly code = 'payment_declined';
  constructor(message: string) {
    super(message);
    this.name = 'PaymentDeclinedError';
  }
}

/** Gateway hiccups: 4 attempts, 1 s, 2 s, 4 s apart (FULL jitter). */
const GATEWAY_RETRY: RetryPolicy = { maxAttempts: 4, initialMs: 1_000, multiplier: 2 };

/** Builds the payments handler on the given services. */
export function createPaymentsHandler(services: PaymentServices): DurableLambdaHandler {
  return withDurableExecution<PaymentRequest, PaymentResult>(async (request, ctx) => {
    const authorizationId = await ctx.step(
      'authorize',
      async ({ idempotencyKey }) => {
        const outcome = await services.gateway.authorize(request, idempotencyKey);
        if (!outcome.approved) throw new PaymentDeclinedError(`card declined: ${outcome.reason}`);
        return outcome.authorizationId;
      },
      { retry: GATEWAY_RETRY },
    );
    const { chargeId } = await ctx.step(
      'capture',
      ({ idempotencyKey }) => services.gateway.capture(authorizationId, request.amountCents, idempotencyKey),
      { retry: GATEWAY_RETRY },
    );
    return { chargeId, amountCents: request.amountCents };
  });
}

/** The production wiring: the card gateway at GATEWAY_URL. */
export function httpPaymentServices(): PaymentServices {
  return {
    gateway: {
      async authorize(request, idempotencyKey) {
        const response = await callJson<{ authorizationId: string; reason?: string }>(
          requireEnv('GATEWAY_URL'),
          'POST',
          '/authorizations',
          request,
          { idempotencyKey },
        );
        if (response.status === 402) return { approved: false, reason: response.body?.reason ?? 'declined' };
        return { approved: true, authorizationId: expectOk(response, 'authorize').authorizationId };
      },
      async capture(authorizationId, amountCents, idempotencyKey) {
        const path = `/authorizations/${encodeURIComponent(authorizationId)}/capture`;
        const response = await callJson<{ chargeId: string }>(
          requireEnv('GATEWAY_URL'),
          'POST',
          path,
          { amountCents },
          {
            idempotencyKey,
          },
        );
        return expectOk(response, 'capture');
      },
    },
  };
}

/** The payments Lambda handler, deployed as its own durable function (named `payments`). */
export const handler = createPaymentsHandler(httpPaymentServices());
