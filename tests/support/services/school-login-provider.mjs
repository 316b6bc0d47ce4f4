/* global URL, URLSearchParams, Buffer */
// Run inside a test server with the bundle's Node 24: the school's OpenID Connect provider for the
// operations tests (the server has a private network, so the school's real one is out of reach).
// Discovery, authorize, token, userinfo and jwks over HTTP on SCHOOL_LOGIN_LISTEN (host:port); it
// signs in whoever the authorize request's login_hint names, without asking: subject and address
// the hint, the address verified, the name the part before the @. The id_token is RS256, signed
// with a key made at start and published at /jwks (node:crypto only: no package to install).
// SCHOOL_LOGIN_ISSUER is the issuer URL it announces (the control plane's OIDC_ISSUER).
import { createPrivateKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { createServer } from 'node:http';

const issuer = (process.env.SCHOOL_LOGIN_ISSUER ?? '').replace(/\/$/, '');
const [host, port] = (process.env.SCHOOL_LOGIN_LISTEN ?? '').split(':');
if (!issuer || !host || !port) {
  console.error('SCHOOL_LOGIN_ISSUER and SCHOOL_LOGIN_LISTEN (host:port) are required');
  process.exit(2);
}

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const key = createPrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' }));
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'school-key', alg: 'RS256', use: 'sig' };
/** code → the sign-in it was given for; access token → whose profile userinfo answers */
const pending = new Map();
const profiles = new Map();

const base64url = (value) => Buffer.from(value).toString('base64url');
function idToken(claims) {
  const header = base64url(JSON.stringify({ alg: 'RS256', kid: 'school-key', typ: 'JWT' }));
  const payload = base64url(JSON.stringify(claims));
  return `${header}.${payload}.${sign('sha256', Buffer.from(`${header}.${payload}`), key).toString('base64url')}`;
}

const identityOf = (hint) => ({ sub: hint, email: hint, name: hint.split('@')[0] });

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', issuer);
  const json = (status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (url.pathname === '/.well-known/openid-configuration') {
    return json(200, {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      userinfo_endpoint: `${issuer}/userinfo`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
  }
  if (url.pathname === '/jwks') return json(200, { keys: [jwk] });
  if (url.pathname === '/userinfo') {
    const profile = profiles.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    return profile ? json(200, profile) : json(401, { error: 'invalid_token' });
  }
  if (url.pathname === '/authorize') {
    const hint = url.searchParams.get('login_hint');
    const back = new URL(url.searchParams.get('redirect_uri') ?? '');
    if (!hint) {
      back.searchParams.set('error', 'login_required');
    } else {
      const code = randomBytes(16).toString('hex');
      pending.set(code, { nonce: url.searchParams.get('nonce') ?? undefined, identity: identityOf(hint) });
      back.searchParams.set('code', code);
    }
    back.searchParams.set('state', url.searchParams.get('state') ?? '');
    res.writeHead(302, { location: back.toString() });
    res.end();
    return;
  }
  if (url.pathname === '/token' && req.method === 'POST') {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk.toString()));
    req.on('end', () => {
      const form = new URLSearchParams(raw);
      const code = form.get('code') ?? '';
      const grant = pending.get(code);
      // A code is good for one token.
      pending.delete(code);
      if (!grant) return json(400, { error: 'invalid_grant' });
      const accessToken = randomBytes(16).toString('hex');
      profiles.set(accessToken, grant.identity);
      const now = Math.floor(Date.now() / 1000);
      const token = idToken({ iss: issuer, aud: form.get('client_id') ?? '', iat: now, exp: now + 300, nonce: grant.nonce, email_verified: true, ...grant.identity });
      json(200, { access_token: accessToken, token_type: 'Bearer', expires_in: 300, id_token: token });
    });
    return;
  }
  json(404, { error: 'not_found' });
});

server.listen(Number(port), host, () => console.log(`school login provider ${issuer} on ${host}:${port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
