/**
 * The collector a transactional step's function writes through (`context.tx`, with `step(name,
 * fn, { transact: true })`): each call checks its write at once (a malformed one, or one past
 * DynamoDB's limits, throws `TransactRejectedError` naming the field before anything is sent), and
 * the writes ride on the step's SUCCEED, committed in the same transaction as its outcome.
 */
import {
  checkTransactWrites,
  MAX_TRANSACT_WRITES,
  type TransactConditionCheck,
  type TransactDelete,
  type TransactPut,
  TransactRejectedError,
  type TransactUpdate,
  type TransactWrite,
} from '@durable-lambda/protocol';
import type { TransactWriter } from '../types/step';

/** One attempt's writes. */
export class AttemptTransactWriter implements TransactWriter {
  readonly #writes: TransactWrite[] = [];
  readonly #enabled: boolean;
  readonly #stepId: string;

  constructor(enabled: boolean, stepId: string) {
    this.#enabled = enabled;
    this.#stepId = stepId;
  }

  put(put: TransactPut): void {
    this.#add({ Put: put });
  }

  update(update: TransactUpdate): void {
    this.#add({ Update: update });
  }

  delete(del: TransactDelete): void {
    this.#add({ Delete: del });
  }

  conditionCheck(check: TransactConditionCheck): void {
    this.#add({ ConditionCheck: check });
  }

  get size(): number {
    return this.#writes.length;
  }

  /** The writes collected, in order. */
  writes(): TransactWrite[] {
    return this.#writes;
  }

  #add(write: TransactWrite): void {
    const index = this.#writes.length;
    if (!this.#enabled) {
      throw new TransactRejectedError(
        'invalid_write',
        'config.transact',
        'context.tx writes only in a step declared with { transact: true }',
        this.#stepId,
      );
    }
    if (index >= MAX_TRANSACT_WRITES) {
      throw new TransactRejectedError(
        'too_many_writes',
        `transactWrites[${index}]`,
        `at most ${MAX_TRANSACT_WRITES} writes per step (DynamoDB's 100 items per transaction, one for the checkpoint)`,
        this.#stepId,
      );
    }
    // Copied now: the function may change its objects after handing them over.
    let copy: TransactWrite;
    try {
      copy = structuredClone(write);
    } catch {
      throw new TransactRejectedError(
        'invalid_write',
        `transactWrites[${index}]`,
        'must be plain values',
        this.#stepId,
      );
    }
    checkTransactWrites([copy], `transactWrites[${index}]`, this.#stepId);
    this.#writes.push(copy);
    // Sizes add up: the whole list is checked against the transaction's bytes too.
    checkTransactWrites(this.#writes, 'transactWrites', this.#stepId);
  }
}
