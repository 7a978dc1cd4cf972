/**
 * The AWS-style suite (aws-style-suite.body.ts) on AWS's own runner and SDK: the
 * reference the body must pass on before it proves anything about ours.
 */

import { styleSuite } from './aws-style-suite.body';
import { TARGETS } from './aws-style-suite.targets';

for (const target of TARGETS.filter((t) => t.name.startsWith('AWS'))) styleSuite(target);
