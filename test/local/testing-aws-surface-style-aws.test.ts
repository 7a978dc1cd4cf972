/**
 * The AWS-style suite (testing-aws-surface-style.body.ts) on AWS's own runner and SDK: the
 * reference the body must pass on before it proves anything about ours.
 */

import { TARGETS } from './testing-aws-surface.support';
import { styleSuite } from './testing-aws-surface-style.body';

for (const target of TARGETS.filter((t) => t.name.startsWith('AWS'))) styleSuite(target);
