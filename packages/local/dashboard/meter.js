/**
 * What a run consumed (its `meter`), as the run page shows it: its invocations, billed duration,
 * DynamoDB units, Scheduler and SQS requests. A figure the host does not measure (the dev server
 * counts invocations and duration only) is said to be not measured, never shown as 0; on AWS (a
 * meter with `wru`) an absent figure is zero.
 */
import { h } from './dom.js';

const number = (value, digits = 2) => value.toLocaleString('en-US', { maximumFractionDigits: digits });
const plural = (value, word) => `${number(value)} ${word}${value === 1 ? '' : 's'}`;

/** The meter's figures, each a labelled part (`data-testid="meter-<figure>"`), or null without one. */
export function renderMeter(meter) {
  if (!meter) return null;
  const gbSeconds = meter.mbMs === undefined ? '' : ` (${number(meter.mbMs / 1024 / 1000, 3)} GB-s)`;
  const parts = [
    ['invocations', plural(meter.invocations, 'invocation')],
    ['billed', `${number(meter.billedMs)} ms billed${gbSeconds}`],
  ];
  if (meter.wru === undefined) {
    parts.push(['not-measured', 'DynamoDB, Scheduler and SQS not measured here']);
  } else {
    parts.push(['wru', `${number(meter.wru)} WRU`], ['rru', `${number(meter.rru ?? 0)} RRU`]);
    if (meter.sqsRequests) parts.push(['sqs', plural(meter.sqsRequests, 'SQS request')]);
    if (meter.schedulerInvocations)
      parts.push(['scheduler', plural(meter.schedulerInvocations, 'Scheduler invocation')]);
    if (meter.lambdaInvokes) parts.push(['invokes', plural(meter.lambdaInvokes, 'Lambda invoke')]);
  }
  return h(
    'span',
    { class: 'meter', dataset: { testid: 'run-meter' } },
    parts.flatMap(([figure, text], i) => [
      i > 0 ? ' · ' : null,
      h('span', { dataset: { testid: `meter-${figure}` } }, text),
    ]),
  );
}
