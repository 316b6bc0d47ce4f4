/**
 * The real host agent for tests: test certificates made by deploy/certs/make-certs.sh, and the
 * agent started as its own process (as `npm start` runs it) on a free loopback port.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { waitFor } from '../clients/ports.ts';

const execFileAsync = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Paths of the files make-certs.sh writes. */
export interface TestCerts {
  dir: string;
  ca: string;
  caKey: string;
  agentCert: string;
  agentKey: string;
  clientCert: string;
  clientKey: string;
}

/** PEM contents of a client identity, as createAgentClient takes them. */
export interface ClientPems {
  caPem: Buffer;
  certPem: Buffer;
  keyPem: Buffer;
}

function certPaths(dir: string): TestCerts {
  return {
    dir,
    ca: path.join(dir, 'ca.pem'),
    caKey: path.join(dir, 'ca-key.pem'),
    agentCert: path.join(dir, 'agent.pem'),
    agentKey: path.join(dir, 'agent-key.pem'),
    clientCert: path.join(dir, 'control-plane.pem'),
    clientKey: path.join(dir, 'control-plane-key.pem'),
  };
}

/**
 * Runs deploy/certs/make-certs.sh into `dir` (a new CA unless `dir` already holds one);
 * `agentHost` adds a name or address to the agent certificate (for an agent in a namespace).
 */
export async function makeTestCerts(dir: string, agentHost?: string): Promise<TestCerts> {
  try {
    await execFileAsync('bash', [path.join(root, 'deploy/certs/make-certs.sh'), dir, ...(agentHost ? [agentHost] : [])]);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`make-certs.sh failed (is openssl installed?): ${stderr || String(error)}`, { cause: error });
  }
  return certPaths(dir);
}

/**
 * Makes one more client certificate signed by the CA in `certs`, with any common name: a valid
 * certificate of the link's CA that the agent must still refuse unless the CN is allowed.
 */
export async function makeClientCert(certs: TestCerts, commonName: string): Promise<{ cert: string; key: string }> {
  const dir = path.join(certs.dir, `client-${commonName.replace(/[^\w.-]/g, '_')}`);
  await mkdir(dir, { recursive: true });
  const key = path.join(dir, 'key.pem');
  const csr = path.join(dir, 'client.csr');
  const cert = path.join(dir, 'cert.pem');
  const extensions = path.join(dir, 'client.ext');
  await execFileAsync('bash', [
    '-c',
    'set -euo pipefail; printf "basicConstraints = critical,CA:FALSE\\nkeyUsage = critical,digitalSignature\\nextendedKeyUsage = clientAuth\\n" > "$5"; ' +
      'openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$1" -subj "/CN=$2" -out "$3" 2>/dev/null; ' +
      'openssl x509 -req -in "$3" -CA "$6" -CAkey "$7" -set_serial "0x$(openssl rand -hex 16)" -days 2 -extfile "$5" -out "$4" 2>/dev/null',
    'make-client-cert',
    key,
    commonName,
    csr,
    cert,
    extensions,
    certs.ca,
    certs.caKey,
  ]);
  return { cert, key };
}

/** Reads a client identity: the CA to trust plus a certificate and key to present. */
export async function readClientPems(caPath: string, certPath: string, keyPath: string): Promise<ClientPems> {
  const [caPem, certPem, keyPem] = await Promise.all([readFile(caPath), readFile(certPath), readFile(keyPath)]);
  return { caPem, certPem, keyPem };
}

export interface TestAgentOptions {
  /** A directory made by makeTestCerts. */
  certDir: string;
  /** Port to listen on; default a free one chosen by the agent (and kept across restart()). */
  port?: number;
  /** Extra environment for the agent process. */
  env?: Record<string, string>;
  /** Run the agent inside this network namespace (`ip netns exec`), listening on `listenAddress`. */
  netns?: string;
  /** Address to listen on; default 127.0.0.1 (dialed as localhost). */
  listenAddress?: string;
  /** Data dir to use (kept on stop); default a new temporary one, removed on stop. */
  dataDir?: string;
  /**
   * Run the agent as this user with its groups (setpriv --init-groups), as the deploy unit's
   * User= does; needs root. Certificates and data dir must be readable/writable by that user.
   */
  user?: string;
  /** Run host-agent/dist/bin/agent.js (made by `npm run build:servers`) with plain node instead of the sources through tsx. */
  compiled?: boolean;
}

export interface TestAgent {
  /** Address a client dials: `localhost:<port>` (in the agent certificate's SAN). */
  address: string;
  port: number;
  /** Everything the agent printed so far (pino JSON lines and any stderr). */
  output(): string;
  /** SIGTERM, then waits until the process has exited (SIGKILL after 10 s). */
  stop(): Promise<void>;
  /** SIGKILL: the agent vanishes without a goodbye, as in a crash. */
  kill(): Promise<void>;
  /** Starts the agent again on the same port (stops it first when it runs). */
  restart(): Promise<void>;
  /** The process id while it runs (for memory readings in benchmarks). */
  pid(): number | undefined;
}

/** Parses the port from the agent's pino `"msg":"listening"` line. */
export function listeningPort(line: string): number | undefined {
  try {
    const entry = JSON.parse(line) as { msg?: unknown; port?: unknown };
    return entry.msg === 'listening' && typeof entry.port === 'number' ? entry.port : undefined;
  } catch {
    return undefined;
  }
}

/** Starts host-agent/src/bin/agent.ts with the test certificates and waits until it listens. */
export async function startTestAgent(options: TestAgentOptions): Promise<TestAgent> {
  const certs = certPaths(options.certDir);
  let port = options.port ?? 0;
  let child: ChildProcess | undefined;
  let output = '';
  // Its own data dir (authorized_keys per project id): project ids repeat across test databases.
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'devplein-test-agent-'));
  const listenAddress = options.listenAddress ?? '127.0.0.1';
  const node = options.compiled
    ? [process.execPath, 'host-agent/dist/bin/agent.js']
    : [process.execPath, '--import', 'tsx', '--conditions=development', 'host-agent/src/bin/agent.ts'];
  const asUser = options.user ? ['setpriv', `--reuid=${options.user}`, `--regid=${options.user}`, '--init-groups', '--', ...node] : node;
  const [command = process.execPath, ...args] = options.netns ? ['ip', 'netns', 'exec', options.netns, ...asUser] : asUser;

  async function launch(): Promise<void> {
    let listening: number | undefined;
    let exitReason: string | undefined;
    let pending = '';
    const process_ = spawn(command, args, {
      cwd: root,
      env: {
        ...process.env,
        AGENT_LISTEN: `${listenAddress}:${port}`,
        AGENT_TLS_CA: certs.ca,
        AGENT_TLS_CERT: certs.agentCert,
        AGENT_TLS_KEY: certs.agentKey,
        AGENT_ALLOWED_CLIENTS: 'devplein-control-plane',
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'info',
        AGENT_SHUTDOWN_TIMEOUT_MS: '3000',
        // Never a Caddy the developer runs on the default admin port: tests that need one pass their own.
        AGENT_CADDY_ADMIN: 'http://127.0.0.1:1',
        AGENT_DATA_DIR: dataDir,
        // Parallel test agents must not race for the default metrics port: off unless a test asks.
        AGENT_METRICS_LISTEN: '',
        // Likewise the access log port of the idle auto-stop: off unless a test asks (then port 0).
        AGENT_IDLE_STOP_AFTER: '0',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = process_;
    process_.stdout?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) listening ??= listeningPort(line);
    });
    process_.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    process_.once('exit', (code, signal) => {
      exitReason = `the agent exited with ${code ?? signal}`;
    });
    try {
      await waitFor(() => listening !== undefined, {
        description: `the host agent to listen on ${listenAddress}:${port || '(any port)'}`,
        timeoutMs: 30_000,
        intervalMs: 50,
        giveUpIf: () => (exitReason ? `${exitReason}\n${output}` : undefined),
      });
    } catch (error) {
      // Never leave an agent behind that did not say it listens (e.g. LOG_LEVEL hid the line).
      process_.kill('SIGKILL');
      throw error;
    }
    port = listening ?? port;
  }

  async function signalAndWait(signal: NodeJS.Signals, graceMs: number): Promise<void> {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill(signal);
    const escalate = setTimeout(() => running.kill('SIGKILL'), graceMs);
    try {
      await exited;
    } finally {
      clearTimeout(escalate);
    }
  }

  await launch();
  return {
    get address() {
      return `${listenAddress === '127.0.0.1' ? 'localhost' : listenAddress}:${port}`;
    },
    get port() {
      return port;
    },
    output: () => output,
    async stop() {
      await signalAndWait('SIGTERM', 10_000);
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
    kill: () => signalAndWait('SIGKILL', 0),
    pid: () => child?.pid,
    async restart() {
      await signalAndWait('SIGTERM', 10_000);
      await launch();
    },
  };
}

/** The control plane's settings for its link to an agent at `address` with the test certificates. */
export function agentLinkEnv(address: string, certs: Pick<TestCerts, 'ca' | 'clientCert' | 'clientKey'>): Record<string, string> {
  return { AGENT_ADDRESS: address, ...agentCertEnv(certs) };
}

/** The control plane's mTLS settings for its agent links with the test certificates (every link uses them). */
export function agentCertEnv(certs: Pick<TestCerts, 'ca' | 'clientCert' | 'clientKey'>): Record<string, string> {
  return { AGENT_TLS_CA: certs.ca, AGENT_TLS_CERT: certs.clientCert, AGENT_TLS_KEY: certs.clientKey };
}
