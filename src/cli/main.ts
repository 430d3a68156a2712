import { Command, CommanderError } from 'commander';
import { CrawlOptionError } from '../bunny/crawl.js';
import { DataDirBusyError } from '../bunny/data-dir.js';
import { VERSION } from '../version.js';
import { crawlCommand } from './crawl-command.js';

/** Exit code for anything the user typed wrong: a bad option, a bad seed URL. */
const USAGE_ERROR = 2;

// commander's own errors (and its "Did you mean" hint) on one line, without a help dump.
const oneLineErrors = {
  outputError: (text: string, write: (s: string) => void) =>
    write(`cobweb: ${text.trim().replace(/\s*\n\s*/g, ' ')}\n`),
};

/** Runs the command line; resolves to the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const program = new Command('cobweb')
    .description('a web crawler: one command on one machine, with an embedded store that resumes')
    .version(VERSION)
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput(oneLineErrors)
    .addCommand(crawlCommand());
  for (const cmd of program.commands) cmd.exitOverride().configureOutput(oneLineErrors);
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end by "throwing" with code 0
      return err.exitCode === 0 ? 0 : USAGE_ERROR;
    }
    if (err instanceof CrawlOptionError) {
      process.stderr.write(`cobweb: ${err.message}\n`);
      return USAGE_ERROR;
    }
    if (err instanceof DataDirBusyError) {
      process.stderr.write(`cobweb: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}
