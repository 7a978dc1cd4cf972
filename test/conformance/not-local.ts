/**
 * Requirements that cannot hold on a local runner, with why: they are not run (and not counted).
 */
const CRASH =
  'needs the Lambda process to crash inside a step (process.exit, Runtime.ExitError): both runners run the handler in the test process, which a crash would end';

export const NOT_LOCAL: Record<string, string> = {
  '1-17': CRASH,
  '1-18': CRASH,
  '3-12': CRASH,
};
