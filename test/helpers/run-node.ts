import { spawn } from 'node:child_process';
import { once } from 'node:events';

export interface NodeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node <args>` as a child and collects its output. Asynchronous on purpose: the
 * test servers the child talks to run in the test's own event loop.
 */
export async function runNode(args: readonly string[], cwd?: string): Promise<NodeRun> {
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += String(d);
  });
  child.stderr.on('data', (d) => {
    stderr += String(d);
  });
  const [code] = await once(child, 'exit');
  return { code: code as number | null, stdout, stderr };
}
