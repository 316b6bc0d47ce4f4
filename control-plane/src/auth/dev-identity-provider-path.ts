/**
 * Where the development identity provider is mounted. Its own module: the app needs the path
 * always, the provider (oidc-provider, ≈ 30 MB once loaded) only with DEV_LOGIN.
 */
export const DEV_IDP_PATH = '/dev-idp';
