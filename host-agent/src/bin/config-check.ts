/**
 * `devplein config check agent` (dist/bin/config-check.js): the agent's settings checked with the
 * agent's own schema (server-kit/config-check-cli.ts has the options); the control plane's and
 * soketi's are checked by control-plane/src/cli/config-check.ts.
 */
import { runConfigCheck } from '@devplein/server-kit/config-check-cli';
import { agentCheck } from '../cli/config-check-agent.ts';

process.exitCode = runConfigCheck(process.argv.slice(2), [agentCheck]);
