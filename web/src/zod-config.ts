import { z } from 'zod';

/**
 * The page runs under a strict CSP (script-src 'self', no eval): zod's JIT probes `new Function`,
 * which Chromium reports as a CSP violation even though zod catches it. Jitless mode skips the
 * probe. Imported first by main.tsx, before any schema exists; the server keeps the JIT.
 */
z.config({ jitless: true });
