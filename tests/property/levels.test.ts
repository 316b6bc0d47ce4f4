/** Property tests of the level tools' write endpoints: categories, content, student levels (see tests/property/harness.ts). */
import { describeEndpoints } from './suite.ts';
import { levelSpecs } from './specs/levels.ts';

describeEndpoints(
  'property: levels',
  levelSpecs.filter((spec) => !spec.route.includes('/courses')),
);
