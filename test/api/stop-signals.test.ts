/**
 * How long-running commands (`durable dev`, `npm start`) take stop signals: the first asks for a
 * graceful stop, a second (a copy relayed by tsx or the terminal) changes nothing, a third forces.
 */
import { onStopSignals } from '@durable-lambda/api';
import { afterEach, expect, it } from 'vitest';

let dispose: (() => void) | undefined;
afterEach(() => dispose?.());

it('resolves at the first signal, takes a second as a relayed copy, and forces the exit at the third', async () => {
  const said: string[] = [];
  const exits: number[] = [];
  const stop = onStopSignals({
    say: (line) => said.push(line),
    exit: (code) => exits.push(code),
    signals: ['SIGUSR2'],
  });
  dispose = stop.dispose;
  let first: string | undefined;
  void stop.requested.then((signal) => {
    first = signal;
  });

  process.emit('SIGUSR2', 'SIGUSR2');
  await Promise.resolve();
  expect(first).toBe('SIGUSR2');
  expect(said).toEqual([]);

  process.emit('SIGUSR2', 'SIGUSR2');
  expect(said).toEqual(['SIGUSR2 again: still stopping (once more to force)']);
  expect(exits).toEqual([]);

  process.emit('SIGUSR2', 'SIGUSR2');
  expect(exits).toEqual([130]);
  expect(said.at(-1)).toMatch(/forced to exit/);
});

it('stops listening once disposed', () => {
  const before = process.listenerCount('SIGUSR2');
  const stop = onStopSignals({ say: () => {}, exit: () => {}, signals: ['SIGUSR2'] });
  expect(process.listenerCount('SIGUSR2')).toBe(before + 1);
  stop.dispose();
  expect(process.listenerCount('SIGUSR2')).toBe(before);
});
