/**
 * The AWS-style suite (aws-style-suite.body.ts) on our runner: over AWS's SDK, and over
 * ours. The same body passes on AWS's own runner (aws-style-suite.aws.test.ts), in its
 * own file: AWS's runner fakes the global timers while it runs.
 */

import { styleSuite } from './aws-style-suite.body';
import { TARGETS } from './aws-style-suite.targets';

for (const target of TARGETS.filter((t) => t.name.startsWith('our'))) styleSuite(target);
