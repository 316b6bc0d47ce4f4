import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Alias } from 'vite';
import react from '@vitejs/plugin-react';
import { precompressBuild } from './vite-precompress.ts';

/** The control plane serves the API, sign-in and realtime auth; in development Vite forwards them to it. */
const controlPlane = 'http://localhost:8080';

/**
 * react-router 7 exports only its development build (react-router issues #12532, #14102): it logs dev
 * warnings in production and carries dev checks (0.6 KB gzip here). Its production build sits next to
 * it with the same module layout; a production bundle points the two entry points there.
 */
function reactRouterProductionBuild(): Alias[] {
  const packageRoot = dirname(createRequire(import.meta.url).resolve('react-router/package.json'));
  const production = join(packageRoot, 'dist', 'production');
  return [
    { find: /^react-router$/, replacement: join(production, 'index.mjs') },
    { find: /^react-router\/dom$/, replacement: join(production, 'dom-export.mjs') },
  ];
}

/** The libraries every page runs on (first paint needs all of them). */
const reactVendor = /[\\/]node_modules[\\/](react|react-dom|scheduler|react-router|react-router-dom|swr|use-sync-external-store|dequal)[\\/]/;

/** Every `import … from 'zod'` of the app and @devplein/contract gets zod in jitless mode (src/zod-jitless.ts). */
const zodJitless: Alias = { find: /^zod$/, replacement: fileURLToPath(new URL('./src/zod-jitless.ts', import.meta.url)) };

export default defineConfig(({ command }) => ({
  plugins: [react(), precompressBuild()],
  resolve: { alias: [zodJitless, ...(command === 'build' ? reactRouterProductionBuild() : [])] },
  server: {
    host: 'localhost',
    proxy: {
      '/api': controlPlane,
      '/auth': controlPlane,
      '/logout': controlPlane,
      '/broadcasting': controlPlane,
      '/dev-idp': controlPlane,
      '/misc': controlPlane,
    },
  },
  preview: { host: 'localhost' },
  // The manifest maps every source module to its chunk and static imports: bench/bundle.bench.ts
  // reads it to report what each page downloads.
  build: {
    outDir: 'dist',
    manifest: true,
    rolldownOptions: {
      output: {
        // React, its router and SWR change only when a dependency is bumped, the app code with every deploy:
        // in a chunk of their own a phone keeps them cached across deploys and fetches only the app again.
        codeSplitting: { groups: [{ name: 'react-vendor', test: reactVendor }] },
      },
    },
  },
}));
