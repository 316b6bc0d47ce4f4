/** A control plane production environment with real-looking values everywhere (no placeholder, no default secret). */
export const productionEnv = {
  NODE_ENV: 'production',
  OIDC_ISSUER: 'https://login.school.test',
  OIDC_CLIENT_ID: 'devplein',
  OIDC_CLIENT_SECRET: 'Qm9vcmQtZWVuLWdlaGVpbS12YW4tZGUtc2Nob29s',
  SESSION_SECRET: 's'.repeat(40),
  ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  APP_URL: 'https://devplein.school.test',
  // phpMyAdmin on an origin of its own (on APP_URL's, production warns at start).
  DB_ADMIN_URL: 'https://phpmyadmin.school.test/',
  REALTIME_SECRET: '9f1c2a7e4b0d8f3a6c5e1b2d',
};
