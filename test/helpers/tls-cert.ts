import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCert {
  key: string;
  /** The certificate, which is also its own CA (what a client is told to trust). */
  cert: string;
}

/**
 * A new self-signed certificate (EC P-256, one day) for an IP address on loopback, made
 * by the machine's openssl: a TLS server the test starts presents it, and a client
 * trusts it only when given it as a CA.
 */
export function selfSignedCert(ip: string): TestCert {
  const dir = mkdtempSync(join(tmpdir(), 'cobweb-cert-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${ip}`,
        '-addext',
        `subjectAltName=IP:${ip}`,
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
