/**
 * Running a command inside a test's container through the Docker API (as root unless a user is
 * given), for tests that look at what an agent put there.
 */
import { Writable } from 'node:stream';
import type Docker from 'dockerode';

/** The command's exit code and its output (stdout with stderr, in arrival order). */
export async function execIn(docker: Docker, container: Docker.Container, cmd: string[], user = 'root'): Promise<{ exitCode: number; output: string }> {
  const exec = await container.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true, Tty: false, User: user });
  const stream = await exec.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  // Written synchronously by demuxStream, so nothing arrives after the stream's end.
  const sink = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      chunks.push(chunk);
      done();
    },
  });
  docker.modem.demuxStream(stream, sink, sink);
  await new Promise((resolve) => stream.once('end', resolve));
  const info = await exec.inspect();
  return { exitCode: info.ExitCode ?? -1, output: Buffer.concat(chunks).toString('utf8') };
}
