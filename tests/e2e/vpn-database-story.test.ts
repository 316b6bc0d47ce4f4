/**
 * The student's whole story, for real: a developer makes a database and a VPN configuration
 * through the API, takes the .conf home, and a MySQL client at home reaches the database
 * through the tunnel — and nothing else on the dev server, even after widening its own
 * AllowedIPs.
 *
 * Three network namespaces' worth of hosts on one machine: tests/support/dev-host.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from '../../control-plane/src/db/seed.ts';
import { startControlPlane, type RunningControlPlane } from '../support/services/control-plane.ts';
import { createTestDatabase, type TestDatabase } from '../support/services/database.ts';
import { type DevHost, inNs, startDevHost } from '../support/stacks/dev-host.ts';
import { HttpSession } from '../support/clients/http-session.ts';
import type { TestMariaDb } from '../support/services/mariadb.ts';
import { waitFor } from '../support/clients/ports.ts';
import type { DatabaseJson } from '@devplein/contract/access';

const DEVELOPER = 'ontwikkelaar@devplein.test';

let host: DevHost;
let database: TestDatabase | undefined;
let app: RunningControlPlane | undefined;
let mariadb: TestMariaDb | undefined;

beforeAll(async () => {
  host = await startDevHost();
  database = await createTestDatabase();
  await seedDemoData(database.knex);
  app = await startControlPlane({ databaseUrl: database.url, env: host.controlPlaneEnv });
}, 180_000);

afterAll(async () => {
  await app?.stop().catch(() => undefined);
  await database?.destroy().catch(() => undefined);
  await host?.stop();
}, 60_000);

describe('a developer reaches their database from home through the VPN', { timeout: 180_000 }, () => {
  it('database + VPN through the API, the .conf applied at home, MySQL through the tunnel, nothing else reachable', async () => {
    const { devhost, wgServer, wgHome, tunnelServer, forbidden, mysqlFromHome, home } = host;
    const session = new HttpSession(app!.url);
    expect((await session.signIn(DEVELOPER)).status).toBe(200);

    // 1. The VPN configuration (the agent brings up the server interface).
    await waitFor(async () => (await session.json('GET', '/api/vpn')).status === 200, { description: 'the control plane reaching the agent', timeoutMs: 30_000, intervalMs: 250 });
    const made = await session.json<{ identifier: string }>('POST', '/api/vpn');
    expect(made.status).toBe(200);
    const again = await session.json<{ identifier: string }>('POST', '/api/vpn');
    expect(again.body.identifier).toBe(made.body.identifier);
    const { stdout: peers } = await inNs(devhost, 'wg', ['show', wgServer, 'allowed-ips']);
    expect(peers.trim().split('\n')).toHaveLength(1);

    // 2. MariaDB on the dev server listens on the tunnel address (and on the forbidden one, so
    //    the only thing between home and it there is the firewall).
    mariadb = await host.startMariaDb();

    // 3. The database, through the API.
    const created = await session.json<DatabaseJson[]>('POST', '/api/user/databases', { db: 'abc' });
    expect(created.status).toBe(200);
    // Bad names never reach MariaDB: 422 with the field error, and nothing new on the server.
    const schemasNow = async (): Promise<string[]> => {
      const root = await mariadb!.root();
      try {
        const [rows] = await root.query('SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA ORDER BY 1');
        return (rows as Array<{ name: string }>).map((row) => row.name);
      } finally {
        await root.end();
      }
    };
    const before = await schemasNow();
    for (const bad of ['', 'abcd', '123', "a'b", 'a`b', 'é', '🙂', 'a b c d']) {
      const refused = await session.json<{ errors?: { db?: string[] } }>('POST', '/api/user/databases', { db: bad });
      expect(refused.status, JSON.stringify(bad)).toBe(422);
      expect(refused.body.errors?.db?.length).toBeGreaterThan(0);
    }
    expect(await schemasNow()).toEqual(before);
    const listed = await session.json<DatabaseJson[]>('GET', '/api/user/databases');
    const abc = listed.body.find((row) => row.name.endsWith('_abc'));
    expect(abc).toBeDefined();
    if (!abc) return;

    // 4. The .conf, downloaded and applied at home as wg-quick would: strip, setconf, address, routes.
    const download = await session.raw(`/api/vpn/${made.body.identifier}`);
    expect(download.status).toBe(200);
    const conf = await download.text();
    expect(conf).not.toContain('0.0.0.0/0');
    const allowed = /^AllowedIPs\s*=\s*(.+)$/m.exec(conf)?.[1]?.split(',').map((part) => part.trim()) ?? [];
    expect(allowed).toEqual([`${tunnelServer}/32`]);
    await host.applyConfAtHome(conf);

    // 5. The student's MySQL client at home: through the tunnel, with the listed credentials.
    const work = await mysqlFromHome(
      tunnelServer,
      abc.user,
      abc.password,
      "CREATE TABLE notes (id INT PRIMARY KEY, text VARCHAR(40)); INSERT INTO notes VALUES (1, 'thuis gemaakt'); SELECT text FROM notes;",
      abc.name,
    );
    expect(work).toEqual({ ok: true, output: 'thuis gemaakt\n' });
    const { stdout: handshakes } = await inNs(devhost, 'wg', ['show', wgServer, 'latest-handshakes']);
    expect(Number(handshakes.trim().split(/\s+/)[1])).toBeGreaterThan(0);

    // 6. Without the tunnel's route the forbidden address is simply not routed; after widening
    //    its own AllowedIPs and adding the route, the server's firewall still drops it.
    const serverKey = /^PublicKey\s*=\s*(\S+)/m.exec(conf)?.[1] ?? '';
    await inNs(home, 'wg', ['set', wgHome, 'peer', serverKey, 'allowed-ips', `${tunnelServer}/32,${forbidden}/32`]);
    await inNs(home, 'ip', ['route', 'add', `${forbidden}/32`, 'dev', wgHome]);
    const sneaky = await mysqlFromHome(forbidden, abc.user, abc.password, 'SELECT 1;');
    expect(sneaky.ok).toBe(false);
    expect(sneaky.output).toMatch(/Can't connect|timed out|Lost connection/i);
    // ...while the allowed address still works over the same, widened tunnel.
    expect((await mysqlFromHome(tunnelServer, abc.user, abc.password, 'SELECT COUNT(*) FROM notes;', abc.name)).output).toBe('1\n');

    // 7. Dropping the database removes database and account: the client at home is refused.
    expect((await session.json('DELETE', `/api/user/databases/${abc.id}`)).status).toBe(200);
    const afterDrop = await mysqlFromHome(tunnelServer, abc.user, abc.password, 'SELECT 1;');
    expect(afterDrop.ok).toBe(false);
    expect(afterDrop.output).toMatch(/Access denied/);
  });
});
