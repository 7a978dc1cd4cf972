/**
 * Approval: a purchase request waits for a person's decision. The approver gets an email with
 * approve and reject links (a callback with a 3-day timeout); if they have not answered after a
 * day they get one reminder; an approval places the order, a rejection tells the requester why,
 * and no answer within 3 days escalates the request. The days in between cost nothing: the
 * invocation ends while it waits, and the answer (or the deadline) starts the next one.
 */
import {
  CallbackExternalError,
  CallbackTimeoutError,
  type CompletionStatus,
  completeBatch,
  continueBatch,
  type DurableLambdaHandler,
  type Duration,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { callJson, expectOk, requireEnv } from '../shared/http';

/** The event that starts an approval run. */
export interface PurchaseRequest {
  requestId: string;
  /** Who asked; told about the outcome. */
  requester: string;
  /** Who decides. */
  approver: string;
  description: string;
  amountCents: number;
  /** ISO 4217, e.g. `EUR`. */
  currency: string;
}

/** Inputs to try the workflow with: the dev server's start form offers them. */
export const samples: ReadonlyArray<{ name: string; input: PurchaseRequest }> = [
  {
    name: 'a laptop for the new hire',
    input: {
      requestId: 'pr-311',
      requester: 'ada@example.com',
      approver: 'bob@example.com',
      description: 'a laptop for the new hire',
      amountCents: 124_000,
      currency: 'EUR',
    },
  },
];

/**
 * What the approve link sends as the callback's result: a JSON string such as
 * `{"approvedBy":"bob@example.com","comment":"ok"}`. The reject link fails the callback instead,
 * with the reason as its message.
 */
export interface Approval {
  approvedBy: string;
  comment?: string;
}

export interface Mailer {
  send(message: { to: string; subject: string; text: string }, idempotencyKey: string): Promise<void>;
}

export interface Purchasing {
  placeOrder(
    order: { requestId: string; description: string; amountCents: number; currency: string; approvedBy: string },
    idempotencyKey: string,
  ): Promise<{ purchaseOrderId: string }>;
}

export interface ApprovalServices {
  mailer: Mailer;
  purchasing: Purchasing;
  /** Builds the approve and reject links of a callback (pages that call the control API). */
  links(callbackId: string): { approve: string; reject: string };
}

export interface ApprovalOptions {
  /** How long the approver has to answer. Default 3 days. */
  timeout?: Duration;
  /** When to remind an approver who has not answered. Default 1 day. */
  remindAfter?: Duration;
  /** Who takes over a request nobody answered. Default `purchasing-leads@example.com`. */
  escalateTo?: string;
}

export type ApprovalResult =
  | { outcome: 'approved'; requestId: string; approvedBy: string; purchaseOrderId: string }
  | { outcome: 'rejected'; requestId: string; reason: string }
  | { outcome: 'escalated'; requestId: string; escalatedTo: string };

/** What the approver did, as the `decision` branch reports it. */
type Decision = { kind: 'approved'; approval: Approval } | { kind: 'rejected'; reason: string } | { kind: 'no-answer' };

/** Builds the approval handler on the given services. */
export function createApprovalHandler(services: ApprovalServices, options: ApprovalOptions = {}): DurableLambdaHandler {
  const timeout = options.timeout ?? { days: 3 };
  const remindAfter = options.remindAfter ?? { days: 1 };
  const escalateTo = options.escalateTo ?? 'purchasing-leads@example.com';
  return withDurableExecution<PurchaseRequest, ApprovalResult>(async (request, ctx) => {
    const { requestId, approver, requester } = request;
    const what = `${request.description} (${formatMoney(request.amountCents, request.currency)})`;

    // The engine issues the callback id; the payload comes back through `parseApproval`.
    const [answer, callbackId] = await ctx.createCallback<Approval>('approval', {
      timeout,
      serdes: { deserialize: parseApproval },
    });
    const links = services.links(callbackId);
    await ctx.step('request-approval', ({ idempotencyKey }) =>
      services.mailer.send(
        {
          to: approver,
          subject: `Approval needed: ${what}`,
          text: `${requester} asks for ${what}.\nApprove: ${links.approve}\nReject: ${links.reject}`,
        },
        idempotencyKey,
      ),
    );

    // Two branches: one waits for the answer, the other reminds the approver after a day. The
    // batch completes as soon as the answer branch has finished; the reminder branch is then
    // abandoned, so an approver who answers within the day never gets a reminder.
    const batch = await ctx.parallel<Decision | null>(
      'await-decision',
      [
        { name: 'decision', func: () => decide(answer) },
        {
          name: 'reminder',
          func: async (branch) => {
            await branch.wait('reminder-delay', remindAfter);
            await branch.step('send-reminder', ({ idempotencyKey }) =>
              services.mailer.send(
                {
                  to: approver,
                  subject: `Reminder: approval needed: ${what}`,
                  text: `${requester} is still waiting for your answer.\nApprove: ${links.approve}\nReject: ${links.reject}`,
                },
                idempotencyKey,
              ),
            );
            return null;
          },
        },
      ],
      { completionConfig: { shouldComplete: whenDecided } },
    );
    const decided = batch.all.find((item) => item.index === 0);
    // The decision branch catches the callback's errors, so it fails only on a bug.
    if (decided?.error) throw decided.error;
    const decision = decided?.result;
    if (!decision) throw new Error('the approval batch completed without a decision');

    switch (decision.kind) {
      case 'approved': {
        const { approvedBy } = decision.approval;
        const { purchaseOrderId } = await ctx.step('place-order', ({ idempotencyKey }) =>
          services.purchasing.placeOrder(
            {
              requestId,
              description: request.description,
              amountCents: request.amountCents,
              currency: request.currency,
              approvedBy,
            },
            idempotencyKey,
          ),
        );
        await ctx.step('notify-approved', ({ idempotencyKey }) =>
          services.mailer.send(
            {
              to: requester,
              subject: `Approved: ${what}`,
              text: `${approvedBy} approved your request. Purchase order ${purchaseOrderId}.`,
            },
            idempotencyKey,
          ),
        );
        return { outcome: 'approved', requestId, approvedBy, purchaseOrderId };
      }
      case 'rejected':
        await ctx.step('notify-rejected', ({ idempotencyKey }) =>
          services.mailer.send(
            { to: requester, subject: `Rejected: ${what}`, text: `${approver} rejected it: ${decision.reason}` },
            idempotencyKey,
          ),
        );
        return { outcome: 'rejected', requestId, reason: decision.reason };
      case 'no-answer':
        await ctx.step('escalate', ({ idempotencyKey }) =>
          services.mailer.send(
            {
              to: escalateTo,
              subject: `Unanswered approval: ${what}`,
              text: `${approver} did not answer ${requester}'s request ${requestId} in time. Please decide.`,
            },
            idempotencyKey,
          ),
        );
        ctx.logger.warn('approval escalated', { requestId, approver, escalateTo });
        return { outcome: 'escalated', requestId, escalatedTo: escalateTo };
    }
  });
}

/** Waits for the callback and turns each way it can end into a {@link Decision}. */
async function decide(answer: Promise<Approval>): Promise<Decision> {
  try {
    return { kind: 'approved', approval: await answer };
  } catch (error) {
    // The reject link fails the callback: CallbackExternalError with the reason as its message.
    if (error instanceof CallbackExternalError) return { kind: 'rejected', reason: error.message };
    // Nobody answered before the callback's timeout.
    if (error instanceof CallbackTimeoutError) return { kind: 'no-answer' };
    throw error;
  }
}

/** Completes the `await-decision` batch once its first branch (the decision) has finished. */
function whenDecided(status: CompletionStatus) {
  const decision = status.items[0]?.status;
  return decision === 'SUCCEEDED' || decision === 'FAILED' ? completeBatch() : continueBatch();
}

/**
 * Reads the approve link's payload. Anything else is a bug in the approval page: the run then
 * fails with `serdes_failed` rather than guess.
 */
export function parseApproval(data: string | undefined): Approval {
  const value = JSON.parse(data ?? 'null') as Partial<Approval> | null;
  if (typeof value?.approvedBy !== 'string' || value.approvedBy.length === 0) {
    throw new Error(`invalid approval payload: ${data}`);
  }
  return { approvedBy: value.approvedBy, ...(typeof value.comment === 'string' ? { comment: value.comment } : {}) };
}

function formatMoney(cents: number, currency: string): string {
  return `${(cents / 100).toFixed(2)} ${currency}`;
}

/** The production wiring: HTTP services at MAILER_URL and PURCHASING_URL, links to APPROVALS_URL. */
export function httpApprovalServices(): ApprovalServices {
  return {
    mailer: {
      async send(message, idempotencyKey) {
        expectOk(
          await callJson(requireEnv('MAILER_URL'), 'POST', '/messages', message, { idempotencyKey }),
          'send mail',
        );
      },
    },
    purchasing: {
      async placeOrder(order, idempotencyKey) {
        const response = await callJson<{ purchaseOrderId: string }>(
          requireEnv('PURCHASING_URL'),
          'POST',
          '/purchase-orders',
          order,
          { idempotencyKey },
        );
        return expectOk(response, 'place order');
      },
    },
    links(callbackId) {
      // The approval page completes the callback through the control API
      // (`POST /v1/callbacks/{id}/succeed` or `/fail`), which is not built yet (see the README's Status).
      const page = new URL(`/approvals/${encodeURIComponent(callbackId)}`, requireEnv('APPROVALS_URL'));
      return { approve: `${page}?answer=approve`, reject: `${page}?answer=reject` };
    },
  };
}

/** The Lambda handler. */
export const handler = createApprovalHandler(httpApprovalServices());
