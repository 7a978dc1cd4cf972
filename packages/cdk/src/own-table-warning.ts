import { Annotations, Stack } from 'aws-cdk-lib/core';
import type { Construct } from 'constructs';

/** The id of the warning {@link warnOfAnotherOwnTable} gives (`Annotations.of(scope).acknowledgeWarning(id)` silences it). */
export const OWN_TABLE_WARNING = '@durable-lambda/cdk:tableOfItsOwn';

/** The durable functions of each stack that made a table of their own. */
const ownTables = new WeakMap<Stack, Construct[]>();

/**
 * Notes that `fn`, a `DurableFunction`, made a table of its own, and warns at synth when another of
 * its stack did too: every table brings its own reconciler (about $0.19 a month of passes and KMS
 * requests), and functions of different tables can neither invoke each other nor share a
 * `DurableApi`. Only a warning: the table is not changed for the user, since a deployed function
 * moved to another table would leave its runs behind.
 */
export function warnOfAnotherOwnTable(fn: Construct): void {
  const stack = Stack.of(fn);
  const others = ownTables.get(stack) ?? [];
  ownTables.set(stack, [...others, fn]);
  if (others.length === 0) return;
  const names = others.map((other) => other.node.path).join(', ');
  Annotations.of(fn).addWarningV2(
    OWN_TABLE_WARNING,
    `${fn.node.path} has a table of its own, as ${names} ${others.length === 1 ? 'has' : 'have'}: each table brings a reconciler of its own (about $0.19 a month), and functions of different tables can neither invoke each other nor share a DurableApi. Give the durable functions of a stack one DurableTable (table: new DurableTable(stack, 'Runs')) before their first deploy; a deployed function keeps its table until its runs have ended (moving it leaves them behind).`,
  );
}
