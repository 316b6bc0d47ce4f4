import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/** The control plane serves the API, sign-in and realtime auth; in development Vite forwards them to it. */
const controlPlane = 'http://localhost:8080';

export default defineConfig({
  plugins: [react()],
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
  build: { outDir: 'dist' },
});
