/**
 * The control API's per-run opt-out of version pinning: `"latest": true` on `POST /v1/runs`
 * records the run as `<function>:$LATEST` (never pinned, invoked unqualified); anything but a
 * boolean is refused naming the field.
 */
import { describe, expect, it } from 'vitest';
import { ApiFixture } from '../api/support';

describe('POST /v1/runs with latest', () => {
  it('starts the run on $LATEST, and refuses a latest that is not a boolean', async () => {
    const fixture = new ApiFixture();
    const pinned = await fixture.start('fn', { n: 1 });
    const latest = await fixture.start('fn', { n: 2 }, { latest: true });
    expect((await fixture.engine.getRun(pinned))?.functionName).toBe('fn');
    expect((await fixture.engine.getRun(latest))?.functionName).toBe('fn:$LATEST');
    expect(fixture.invoked.map((i) => i.functionName)).toEqual(['fn', 'fn:$LATEST']);
    const bad = await fixture.call('POST', '/v1/runs', { body: { function: 'fn', latest: 'yes' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'invalid_argument', message: expect.stringContaining('latest') });
  });
});
