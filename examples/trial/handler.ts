/**
 * Trial: a customer's free trial. It shows three features together in one small workflow:
 *
 * - search tags: the run is tagged with its customer and plan (`ctx.tag`), so support finds it
 *   with `durable list --tag customer=cus-42` (or `GET /v1/runs?tag=customer:cus-42`);
 * - published state: the run's stage (`ctx.publish`), `trial` with its end, later `paid` or
 *   `expired`, readable by anyone from the run (`durable show`, the dashboard) without replaying it;
 * - named signals: the run waits for the signal `upgraded` for as long as the trial lasts
 *   (`ctx.waitForSignal`). The billing system sends it, with no callback id to look up:
 *   `durable signal <runId> upgraded '{"plan":"pro"}'` or `POST /v1/runs/{id}/signals/upgraded`.
 *   A signal sent before the run reaches the wait is kept and taken there; no signal within the
 *   trial makes the wait reject with `SignalTimeoutError`, and the trial ends.
 *
 * The weeks of the trial cost nothing: the invocation ends while it waits, and the signal (or the
 * trial's end) starts the next one.
 */
import {
  type DurableLambdaHandler,
  type Duration,
  SignalTimeoutError,
  StepSemantics,
  withDurableExecution,
} from '@durable-lambda/sdk';
import { callJson, expectOk, requireEnv } from '../shared/http';

/** The event that starts a trial run. */
export interface TrialRequest {
  /** The customer's id, e.g. `cus-42`: the run's `customer` tag. */
  customer: string;
  email: string;
  /** The plan being tried, e.g. `team`: the run's `plan` tag until an upgrade names another. */
  plan: string;
}

/** Inputs to try the workflow with: the dev server's start form offers them. */
export const samples: ReadonlyArray<{ name: string; input: TrialRequest }> = [
  { name: 'a new customer tries the team plan', input: { customer: 'cus-42', email: 'ada@example.com', plan: 'team' } },
];

/** The payload of the signal `upgraded`, as the billing system sends it: `{"plan":"pro"}`. */
export interface Upgrade {
  plan: string;
}

/** What the run publishes (`ctx.publish`) as it goes. */
export type TrialStage =
  | { stage: 'trial'; endsAt: string }
  | { stage: 'paid'; plan: string }
  | { stage: 'expired'; endedAt: string };

export interface Mailer {
  send(message: { to: string; subject: string; text: string }, idempotencyKey: string): Promise<void>;
}

/** The billing system: turns a paid plan on, or ends a trial nobody paid for. */
export interface Billing {
  activatePlan(
    request: { customer: string; plan: string },
    idempotencyKey: string,
  ): Promise<{ subscriptionId: string }>;
  endTrial(request: { customer: string }, idempotencyKey: string): Promise<void>;
}

export interface TrialServices {
  mailer: Mailer;
  billing: Billing;
}

export interface TrialOptions {
  /** How long the trial lasts: the signal wait's timeout. Default 14 days. */
  trialLength?: Duration;
  /**
   * The clock the trial's end is computed from (inside a step, so a replay keeps the first
   * answer). Default `Date.now`; tests pass their virtual start.
   */
  now?: () => number;
}

export type TrialResult = { outcome: 'upgraded'; plan: string; subscriptionId: string } | { outcome: 'expired' };

const SECOND_MS = 1000;

function durationMs(d: Duration): number {
  return ((((d.days ?? 0) * 24 + (d.hours ?? 0)) * 60 + (d.minutes ?? 0)) * 60 + (d.seconds ?? 0)) * SECOND_MS;
}

/** Builds the trial handler on the given services. */
export function createTrialHandler(services: TrialServices, options: TrialOptions = {}): DurableLambdaHandler {
  const trialLength = options.trialLength ?? { days: 14 };
  const now = options.now ?? Date.now;
  return withDurableExecution<TrialRequest, TrialResult>(async ({ customer, email, plan }, ctx) => {
    await ctx.tag({ customer, plan });

    // The end is computed in the step, so every replay publishes and mails the same instant.
    const { endsAt } = await ctx.step('send-welcome', async ({ idempotencyKey }) => {
      const ends = new Date(now() + durationMs(trialLength)).toISOString();
      await services.mailer.send(
        {
          to: email,
          subject: `Welcome to your ${plan} trial`,
          text: `Your trial ends at ${ends}. Upgrade any time to keep your data.`,
        },
        idempotencyKey,
      );
      return { endsAt: ends };
    });
    await ctx.publish({ stage: 'trial', endsAt } satisfies TrialStage);

    let upgrade: Upgrade;
    try {
      upgrade = await ctx.waitForSignal<Upgrade>('upgraded', { timeout: trialLength });
    } catch (error) {
      if (!(error instanceof SignalTimeoutError)) throw error;
      await ctx.step(
        'end-trial',
        ({ idempotencyKey }) => services.billing.endTrial({ customer }, idempotencyKey),
        // Its start is stored before the call, so a crash during the call counts as a lost attempt.
        { semantics: StepSemantics.AtMostOncePerRetry },
      );
      await ctx.publish({ stage: 'expired', endedAt: endsAt } satisfies TrialStage);
      ctx.logger.info('trial expired', { customer });
      return { outcome: 'expired' };
    }

    const { subscriptionId } = await ctx.step('activate-plan', ({ idempotencyKey }) =>
      services.billing.activatePlan({ customer, plan: upgrade.plan }, idempotencyKey),
    );
    await ctx.tag({ plan: upgrade.plan });
    await ctx.publish({ stage: 'paid', plan: upgrade.plan } satisfies TrialStage);
    ctx.logger.info('trial upgraded', { customer, plan: upgrade.plan });
    return { outcome: 'upgraded', plan: upgrade.plan, subscriptionId };
  });
}

/** The production wiring: HTTP services at MAILER_URL and BILLING_URL. */
export function httpTrialServices(): TrialServices {
  return {
    mailer: {
      async send(message, idempotencyKey) {
        expectOk(
          await callJson(requireEnv('MAILER_URL'), 'POST', '/messages', message, { idempotencyKey }),
          'send mail',
        );
      },
    },
    billing: {
      async activatePlan(request, idempotencyKey) {
        const path = `/customers/${encodeURIComponent(request.customer)}/subscriptions`;
        const response = await callJson<{ subscriptionId: string }>(
          requireEnv('BILLING_URL'),
          'POST',
          path,
          { plan: request.plan },
          { idempotencyKey },
        );
        return expectOk(response, 'activate plan');
      },
      async endTrial(request, idempotencyKey) {
        const path = `/customers/${encodeURIComponent(request.customer)}/trial/end`;
        expectOk(await callJson(requireEnv('BILLING_URL'), 'POST', path, {}, { idempotencyKey }), 'end trial');
      },
    },
  };
}

/** The Lambda handler. */
export const handler = createTrialHandler(httpTrialServices());
