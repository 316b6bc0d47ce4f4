/** Property tests of the level content's courses, texts and files (see tests/property/harness.ts). */
import { describeEndpoints } from './suite.ts';
import { levelSpecs } from './specs/levels.ts';

describeEndpoints(
  'property: courses, texts and files',
  levelSpecs.filter((spec) => spec.route.includes('/courses')),
);
