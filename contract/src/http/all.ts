/**
 * Every endpoint declared in the contract, in the order of the control plane's routers. The
 * routes × roles test checks that each is registered and in its table, and that no registered
 * route is missing here; the OpenAPI document is made from this list.
 */
import type { Endpoint } from './endpoint.ts';
import { databaseEndpoints } from './databases.ts';
import { sshKeyEndpoints } from './ssh-keys.ts';
import { vpnEndpoints } from './vpn.ts';
import { userDockerEndpoints } from './user-dockers.ts';

export const ENDPOINTS: readonly Endpoint[] = [...sshKeyEndpoints, ...userDockerEndpoints, ...databaseEndpoints, ...vpnEndpoints];
