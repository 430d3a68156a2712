import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

/**
 * Transpiles the bench child scripts to plain JavaScript under outDir, keeping the folder
 * layout so relative imports still resolve. The measured children then run on bare node:
 * loading them through tsx would add its loader thread (about 50 MB RSS) to the raw loop's
 * peak, while cobweb runs compiled from dist/.
 */
export function compileBenchScripts(repoDir: string, outDir: string): void {
  const benchDir = join(repoDir, 'bench');
  const sources = [join(benchDir, 'raw-loop.ts'), ...tsFilesIn(join(benchDir, 'web'))];
  for (const source of sources) {
    const { outputText } = ts.transpileModule(readFileSync(source, 'utf8'), {
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
      fileName: source,
    });
    const target = join(outDir, relative(repoDir, source)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
}

function tsFilesIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(dir, name));
}
