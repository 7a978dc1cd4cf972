/**
 * The reviewed list of conformance requirements that fail today, with the cause of each, per
 * runner (`runner`: the test runner; `dynamodb`: the production backend over DynamoDB Local).
 * The conformance tests fail when a listed requirement passes (remove it here) or an unlisted one
 * fails. Each cause says what the history or outcome has instead of what the requirement wants.
 * Drafted from a run with `CONFORMANCE_DUMP=<dir>` and reviewed; refresh it the same way.
 */

export type RunnerName = 'runner' | 'dynamodb';

/** Why a requirement fails, per runner where it does. */
export type ExpectedFailure = Partial<Record<RunnerName, string>>;

/**
 * None today. An entry names the requirement and, per runner, what differs; a difference of design
 * rather than a defect is said as such (`by design: …`).
 */
export const EXPECTED_FAILURES: Record<string, ExpectedFailure> = {};
