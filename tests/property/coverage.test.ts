/**
 * Every write endpoint of the control plane (POST/PUT/PATCH/DELETE under /api and /broadcasting,
 * from the real route table) has a property spec, and every spec names a route that exists: a
 * new write route without one fails here.
 */
import { describe, expect, it } from 'vitest';
import { writeRoutes } from '../support/fixtures/route-table.ts';
import { adminSpecs } from './specs/admin.ts';
import { hostingSpecs } from './specs/hosting.ts';
import { levelSpecs } from './specs/levels.ts';
import { userSpecs } from './specs/user.ts';

const specs = [...levelSpecs, ...adminSpecs, ...userSpecs, ...hostingSpecs].map((spec) => spec.route);

describe('property specs of the write endpoints', () => {
  it('cover exactly the write routes of the route table, once each', () => {
    const routes = writeRoutes().map((route) => route.key);
    const missing = routes.filter((key) => !specs.includes(key));
    const stale = specs.filter((key) => !routes.includes(key));
    const twice = specs.filter((key, index) => specs.indexOf(key) !== index);
    expect(missing, 'write routes without a property spec: add one under tests/property/specs/').toEqual([]);
    expect(stale, 'property specs whose route no longer exists').toEqual([]);
    expect(twice, 'routes with two property specs').toEqual([]);
  });
});
