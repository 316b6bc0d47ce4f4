/** Property tests of the teachers' level tools' write endpoints (see tests/property/harness.ts). */
import { describeEndpoints } from './suite.ts';
import { levelSpecs } from './specs/levels.ts';

describeEndpoints('property: level tools', levelSpecs);
