/**
 * Section "fixed-cost": what one durable function and its table cost a month before their first
 * run, at the CDK's defaults and with the opt-ins. A `DurableFunction` is synthesized (bundling
 * skipped: the price does not depend on the code) and every resource of its template priced by
 * `fixedMonthlyCost` of @durable-lambda/cdk (list prices, us-east-1, no free tier; the prices and
 * their sources in packages/cdk/src/fixed-cost-prices.ts, the table in the CDK README). The
 * reconciler's passes are priced at the due index's shard count, at least 64.
 */

import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DUE_SHARDS } from '@durable-lambda/aws';
import {
  type CloudFormationTemplate,
  DurableFunction,
  type DurableFunctionProps,
  FIXED_COST_ASSUMPTIONS,
  fixedMonthlyCost,
} from '@durable-lambda/cdk';
import { App, Stack } from 'aws-cdk-lib';
import { emitRows, figure } from './figure-rows';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const TARGET_USD = 0.5;

/** The due index is moving from 16 to 64 shards: price whichever is more. */
const dueShards = Math.max(DUE_SHARDS, FIXED_COST_ASSUMPTIONS.dueShards);

/** The template of a stack holding one DurableFunction (its own table) with `props`. */
function template(props: Partial<DurableFunctionProps> = {}): CloudFormationTemplate {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'FixedCost');
  new DurableFunction(stack, 'Fn', {
    entry: join(ROOT, 'examples', 'checkout', 'handler.ts'),
    projectRoot: ROOT,
    depsLockFilePath: join(ROOT, 'package-lock.json'),
    ...props,
  });
  return app.synth().getStackByName('FixedCost').template as CloudFormationTemplate;
}

const usd = (x: number) => `$${x.toFixed(x < 0.1 ? 3 : 2)}`;
const estimate = (props: Partial<DurableFunctionProps> = {}) => fixedMonthlyCost(template(props), { dueShards });

const defaults = estimate();
const withAlarms = estimate({ alarms: true });
const priced = defaults.lines.filter((line) => line.monthlyUsd > 0);
const itemised = priced.map((line) => `${line.item}: ${usd(line.monthlyUsd)} (${line.quantity})`).join('; ');

emitRows([
  figure({
    section: 'fixed-cost',
    metric: 'fixed monthly cost of one function and its table, defaults',
    unit: '$',
    ours: defaults.monthlyUsd,
    reference: null,
    referenceName:
      'none (the managed service has no fixed cost; ours was ~$3.7 with 9 alarm metrics, 8 custom metrics, a 1-minute reconciler)',
    target: `≤ $${TARGET_USD.toFixed(2)}`,
    met: (_ratio, ours) => ours <= TARGET_USD && defaults.unknown.length === 0,
    note:
      `cdk synth of a default DurableFunction, every resource priced (list prices, us-east-1, no free tier; due index at ${dueShards} shards): ${itemised}; ` +
      `${defaults.alarmMetrics} alarm metrics, ${defaults.customMetrics} custom metrics, ${defaults.kmsKeys} KMS keys; ` +
      (defaults.unknown.length > 0 ? `NOT priced (unknown types): ${defaults.unknown.join(', ')}; ` : '') +
      'everything else free at rest (IAM, schedule groups, queues nobody polls, versions, aliases). Opt-ins priced in the CDK README.',
  }),
  figure({
    section: 'fixed-cost',
    metric: 'fixed monthly cost of one function and its table, alarms: true (opt-in)',
    unit: '$',
    ours: withAlarms.monthlyUsd,
    reference: null,
    referenceName: 'none (opt-in: alarms and the custom metrics they watch)',
    note: `${withAlarms.alarmMetrics} alarm metrics ($0.10 each), ${withAlarms.customMetrics} custom metrics ($0.30 each), the stuck-runs watchdog every 5 minutes; on top of the defaults' ${usd(defaults.monthlyUsd)}`,
  }),
]);
