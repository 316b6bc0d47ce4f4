/**
 * `npm run config-check -- [control-plane|agent|soketi] [--file F] [--unit U] [--env]`: the
 * repository's `devplein config check`, with all three roles in one process (in a release
 * bundle bin/devplein runs the control plane's and the agent's compiled commands).
 */
import { runConfigCheck } from '@devplein/server-kit/config-check-cli';
import { controlPlaneCheck } from '../control-plane/src/cli/config-check-control-plane.ts';
import { soketiCheck } from '../control-plane/src/cli/config-check-soketi.ts';
import { agentCheck } from '../host-agent/src/cli/config-check-agent.ts';

process.exitCode = runConfigCheck(process.argv.slice(2), [controlPlaneCheck, agentCheck, soketiCheck]);
