/**
 * `devplein config check control-plane|soketi` (dist/cli/config-check.js): their settings
 * checked with the control plane's own schema and soketi's (server-kit/config-check-cli.ts has
 * the options); the agent's are checked by host-agent/src/bin/config-check.ts.
 */
import { runConfigCheck } from '@devplein/server-kit/config-check-cli';
import { controlPlaneCheck } from './config-check-control-plane.ts';
import { soketiCheck } from './config-check-soketi.ts';

process.exitCode = runConfigCheck(process.argv.slice(2), [controlPlaneCheck, soketiCheck]);
