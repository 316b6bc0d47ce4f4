/**
 * `zod` as the web app's bundle sees it: vite.config.ts points the bare `zod` specifier here, so
 * jitless mode is set before any module that imports zod builds a schema. The page runs under a
 * strict CSP (script-src 'self', no eval): zod's JIT probes `new Function`, which Chromium reports
 * as a CSP violation even though zod catches it; jitless mode skips the probe. Only the chunks that
 * use zod (the docker request form) load it: the main bundle carries no zod. The server keeps the JIT.
 * Messages a schema does not word itself come in Dutch (zod's nl locale), as on the server.
 */
import { z } from 'zod/v4';
import nl from 'zod/v4/locales/nl.js';

z.config({ jitless: true, ...nl() });

export * from 'zod/v4';
export { z, z as default };
