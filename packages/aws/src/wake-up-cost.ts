/**
 * What a wake-up costs, for the run meter (`invocation-meter.ts`): the calls the wakers and the
 * invoker count when they send it, by the route `OnTimeWaker.route` gives it. The engine's last
 * write of an invocation carries the cost of the wake-up it asks for right after that write, so
 * the two must agree: each sender counts with the constants below.
 */
import type { RunMeterIncrement, WakeRequest } from '@durable-lambda/engine';

/**
 * How a wake-up is sent, as `OnTimeWaker.route` decides it: not at all (a lease's safety net left
 * to the reconciler), an immediate Lambda invoke, an SQS delay message, a Scheduler schedule, or a
 * schedule that hops to SQS for the last 15 minutes. Defined here, with what each costs, so the
 * cost needs nothing of the waker (which sends through modules that count these costs).
 */
export type WakeRoute = 'none' | 'immediate' | 'queue' | 'scheduler' | 'scheduler+hop';

/** What routes a wake-up (`OnTimeWaker`). */
export interface WakeRouter {
  /** Which mechanism a wake-up asked for now goes by. */
  route(request: WakeRequest): WakeRoute;
}

/**
 * SQS requests one wake-up message costs: its `SendMessage`, and the `ReceiveMessage` and
 * `DeleteMessage` by which Lambda's event source delivers it (a batch of one, as the construct
 * deploys). SQS bills each request (per 64 KB chunk): https://aws.amazon.com/sqs/pricing/
 */
export const SQS_REQUESTS_PER_WAKE_UP = 3;

/** What one wake-up message on the queue costs. */
export const QUEUE_WAKE_UP_COST: RunMeterIncrement = { sqsRequests: SQS_REQUESTS_PER_WAKE_UP };

/**
 * What a Scheduler hop adds to its schedule (`OnTimeWaker`'s wake-ups beyond 15 minutes): the
 * invocation the schedule fires, which re-arms the rest as an SQS message (its duration, a few
 * ms, is not counted).
 */
export const HOP_COST: RunMeterIncrement = { invocations: 1, sqsRequests: SQS_REQUESTS_PER_WAKE_UP };

/**
 * What a schedule costs: its `CreateSchedule` and the invocation it fires (what Scheduler bills,
 * https://aws.amazon.com/eventbridge/pricing/; API calls are not billed but count against the
 * quota); a lease's safety schedule is deleted at a clean close instead: its create and delete.
 */
export function scheduleCost(request: Pick<WakeRequest, 'reason'>): RunMeterIncrement {
  return request.reason === 'lease' ? { schedulerRequests: 2 } : { schedulerRequests: 1, schedulerInvocations: 1 };
}

/** What `request`, sent now by `waker`, will cost (by its route; nothing for one that sends nothing). */
export function wakeUpCost(waker: WakeRouter, request: WakeRequest): RunMeterIncrement {
  switch (waker.route(request)) {
    case 'none':
      return {};
    case 'immediate':
      return { lambdaInvokes: 1 };
    case 'queue':
      return QUEUE_WAKE_UP_COST;
    case 'scheduler':
      return scheduleCost(request);
    case 'scheduler+hop': {
      const schedule = scheduleCost(request);
      return {
        ...schedule,
        invocations: HOP_COST.invocations ?? 0,
        sqsRequests: HOP_COST.sqsRequests ?? 0,
      };
    }
  }
}
