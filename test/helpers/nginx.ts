/**
 * A real nginx (Debian's package) as a child process of the test: in the foreground (`daemon off`),
 * on 127.0.0.1, with its pid file, logs and temporary files in a folder of its own, so that it
 * needs no root and touches nothing of a system nginx.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { delimiter, join } from 'node:path';

/** The nginx binary on the PATH or in /usr/sbin (where Debian puts it, often off a user's PATH). */
export function findNginx(): string | undefined {
  const folders = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  return folders
    .filter((folder) => folder !== '')
    .map((folder) => join(folder, 'nginx'))
    .find((path) => existsSync(path));
}

export interface Nginx {
  /** Everything nginx wrote to its error log. */
  errorLog(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts nginx with `httpBlock` (what a `conf.d/*.conf` file holds) inside a main configuration
 * that keeps everything in a temporary folder, and waits until `port` accepts connections.
 */
export async function startNginx(binary: string, httpBlock: string, port: number): Promise<Nginx> {
  const prefix = await mkdtemp(join(tmpdir(), 'express-app-mcp-nginx-'));
  // Workers run as the user named below; as root they must be able to enter the folder.
  await chmod(prefix, 0o755);
  const errorLog = join(prefix, 'error.log');
  const temp = (name: string) => join(prefix, name);
  const config = `
daemon off;
master_process on;
worker_processes 1;
${userInfo().uid === 0 ? `user ${userInfo().username};` : ''}
pid ${temp('nginx.pid')};
error_log ${errorLog} info;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${temp('body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
${httpBlock}
}
`;
  const configFile = join(prefix, 'nginx.conf');
  await writeFile(configFile, config);
  const child: ChildProcess = spawn(binary, ['-p', prefix, '-c', configFile, '-e', errorLog], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const readLog = () => readFile(errorLog, 'utf8').catch(() => '');

  for (let attempt = 0; !(await accepts(port)); attempt++) {
    if (child.exitCode !== null || attempt >= 100) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not start:\n${output}\n${await readLog()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    errorLog: readLog,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        // SIGTERM: nginx's fast shutdown, of the master and its workers.
        child.kill('SIGTERM');
        await exited;
      }
      await rm(prefix, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
