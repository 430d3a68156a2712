import { readFileSync } from 'node:fs';

interface PackageInfo {
  version: string;
  homepage: string;
}

// Read at run time so src/ (tests) and dist/ (installed) both find ../package.json.
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as PackageInfo;

export const VERSION = pkg.version;
export const HOMEPAGE = pkg.homepage;
export const DEFAULT_USER_AGENT = `cobweb/${VERSION} (+${HOMEPAGE})`;
