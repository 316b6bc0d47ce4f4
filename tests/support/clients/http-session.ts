/**
 * A browser-like HTTP client for API tests: a cookie jar, manual redirects, the headers the web
 * app sends (X-Requested-With, X-CSRF-TOKEN from the XSRF-TOKEN cookie), and sign-in through the
 * real OpenID Connect flow of the development identity provider (`/auth/school?login_hint=`).
 */
export class HttpSession {
  private readonly cookies = new Map<string, string>();

  /** `transport`: how a request goes out (this process's fetch, or e.g. curl inside a test server: machine-http.ts). */
  constructor(
    readonly baseUrl: string,
    private readonly transport: typeof fetch = fetch,
  ) {}

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  /** Sends one request (no redirect following) with the jar's cookies, and stores what comes back. */
  async raw(path: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(path, this.baseUrl);
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) {
      headers.set('Cookie', [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    }
    const response = await this.transport(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) this.store(line);
    return response;
  }

  private store(line: string): void {
    const [pair = '', ...attributes] = line.split(';');
    const index = pair.indexOf('=');
    if (index <= 0) return;
    const name = pair.slice(0, index).trim();
    const value = pair.slice(index + 1).trim();
    const expired = attributes.some((attribute) => {
      const [key = '', val = ''] = attribute.trim().split('=');
      if (key.toLowerCase() === 'max-age') return Number(val) <= 0;
      if (key.toLowerCase() === 'expires') return new Date(val).getTime() <= Date.now();
      return false;
    });
    if (expired || value === '') this.cookies.delete(name);
    else this.cookies.set(name, value);
  }

  /** Follows redirects inside this origin (and the provider, which lives on it or elsewhere). */
  async follow(path: string, init: RequestInit = {}, maxHops = 15): Promise<Response> {
    let response = await this.raw(path, init);
    for (let hop = 0; hop < maxHops && response.status >= 300 && response.status < 400; hop++) {
      const location = response.headers.get('location');
      if (!location) break;
      response = await this.raw(new URL(location, response.url || this.baseUrl).toString());
    }
    return response;
  }

  /** A JSON API call as the web app makes it. */
  async api(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<Response> {
    const headers: Record<string, string> = {
      'X-Requested-With': 'XMLHttpRequest',
      Accept: 'application/json',
      ...extraHeaders,
    };
    const token = this.cookies.get('XSRF-TOKEN');
    if (token && !('X-CSRF-TOKEN' in extraHeaders)) headers['X-CSRF-TOKEN'] = decodeURIComponent(token);
    let payload: string | undefined;
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    return this.raw(path, { method, headers, body: payload });
  }

  async json<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await this.api(method, path, body);
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
  }

  /** Loads a page so the server hands out the session's CSRF token cookie. */
  async primeCsrf(): Promise<void> {
    await this.raw('/');
  }

  /**
   * Logs out as the top menu's button does: POST /logout with the CSRF token, then to where it
   * answers. At the development provider's end_session_endpoint the logout page's form is posted
   * as its script would (with logout=yes), and the redirects are followed back to the app.
   * Returns the POST's answer and the last response.
   */
  async logOut(): Promise<{ answer: Response; redirect: string; landing: Response }> {
    const answer = await this.api('POST', '/logout');
    const { redirect } = (await answer.clone().json()) as { redirect: string };
    let landing = await this.follow(redirect);
    const page = landing.status === 200 && (landing.headers.get('content-type') ?? '').includes('html') ? await landing.clone().text() : '';
    const form = /<form id="op\.logoutForm" method="post" action="([^"]+)"><input type="hidden" name="xsrf" value="([^"]+)"\/>/.exec(page);
    if (form) {
      const action = new URL(form[1] ?? '', landing.url || redirect).toString();
      landing = await this.raw(action, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ xsrf: form[2] ?? '', logout: 'yes' }).toString(),
      });
      const location = landing.headers.get('location');
      if (location) landing = await this.follow(new URL(location, action).toString());
    }
    return { answer, redirect, landing };
  }

  /** Signs in as a known account through the real authorization-code + PKCE flow; ends on `/`. */
  async signIn(email: string, providerName = 'school'): Promise<Response> {
    const response = await this.follow(`/auth/${providerName}?login_hint=${encodeURIComponent(email)}`);
    await this.primeCsrf();
    return response;
  }
}

/**
 * One signed-in session per e-mail address, made on first use and reused (sign-in is the slow
 * part); a sign-in that does not land on 200 throws. `null` is the anonymous visitor (a session
 * with a CSRF token, never signed in). `baseUrl` is read then, so the app may start after this is made.
 */
export function signedInSessions(baseUrl: () => string): (email: string | null) => Promise<HttpSession> {
  const sessions = new Map<string | null, HttpSession>();
  return async (email) => {
    const existing = sessions.get(email);
    if (existing) return existing;
    const session = new HttpSession(baseUrl());
    if (email === null) await session.primeCsrf();
    else {
      const landing = await session.signIn(email);
      if (landing.status !== 200) throw new Error(`sign-in of ${email} answered ${landing.status}`);
    }
    sessions.set(email, session);
    return session;
  };
}
