/** Property tests of the admin screens' write endpoints (see tests/property/harness.ts). */
import { describeEndpoints } from './suite.ts';
import { adminSpecs } from './specs/admin.ts';

describeEndpoints('property: admin screens', adminSpecs);
