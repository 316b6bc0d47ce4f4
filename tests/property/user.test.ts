/** Property tests of the students' and developers' own write endpoints (see tests/property/harness.ts). */
import { describeEndpoints } from './suite.ts';
import { userSpecs } from './specs/user.ts';

describeEndpoints('property: own records', userSpecs);
