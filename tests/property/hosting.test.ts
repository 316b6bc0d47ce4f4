/** Property tests of the write endpoints that reach the host through the agent (see tests/property/harness.ts). */
import { describeEndpoints } from './suite.ts';
import { hostingSpecs } from './specs/hosting.ts';

describeEndpoints('property: containers, databases, VPN', hostingSpecs);
