/**
 * The AWS-style suite (testing-aws-surface-style.body.ts) on our runner: over AWS's SDK, and over
 * ours. The same body passes on AWS's own runner (testing-aws-surface-style-aws.test.ts), in its
 * own file: AWS's runner fakes the global timers while it runs.
 */

import { TARGETS } from './testing-aws-surface.support';
import { styleSuite } from './testing-aws-surface-style.body';

for (const target of TARGETS.filter((t) => t.name.startsWith('our'))) styleSuite(target);
