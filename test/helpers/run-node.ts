import { spawn } from 'node:child_process';
import { once } from 'node:events';

export interface NodeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface NodeRunOptions {
  cwd?: string;
  /** Written to its standard input, which is then closed (else it has none). */
  input?: string;
  /** Run as this user and group (root may write anywhere; a test of a refusal may not be root). */
  uid?: number;
  gid?: number;
}

/**
 * Runs `node <args>` as a child and collects its output. Asynchronous on purpose: the
 * test servers the child talks to run in the test's own event loop. A string second
 * argument is the working folder.
 */
export async function runNode(
  args: readonly string[],
  options: string | NodeRunOptions = {},
): Promise<NodeRun> {
  const o = typeof options === 'string' ? { cwd: options } : options;
  const child = spawn(process.execPath, args, {
    cwd: o.cwd,
    stdio: [o.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    ...(o.uid === undefined ? {} : { uid: o.uid }),
    ...(o.gid === undefined ? {} : { gid: o.gid }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += String(d);
  });
  child.stderr?.on('data', (d) => {
    stderr += String(d);
  });
  if (o.input !== undefined) child.stdin?.end(o.input);
  const [code] = await once(child, 'exit');
  return { code: code as number | null, stdout, stderr };
}
