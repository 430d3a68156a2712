import { Command, CommanderError } from 'commander';
import { CrawlOptionError, DataDirBusyError } from '../bunny/errors.js';
import { PostgresConfigError, PostgresUnreachableError } from '../frontier/postgres/errors.js';
import { VERSION } from '../version.js';
import { bunnyCommand } from './bunny-command.js';
import { controlCommands } from './control-commands.js';
import { crawlCommand } from './crawl-command.js';
import { EXIT } from './exit-codes.js';
import { reportCommand } from './report-command.js';
import { serverCommand } from './server-command.js';

// commander's own errors (and its "Did you mean" hint) on one line, without a help dump.
const oneLineErrors = {
  outputError: (text: string, write: (s: string) => void) =>
    write(`cobweb: ${text.trim().replace(/\s*\n\s*/g, ' ')}\n`),
};

/** Runs the command line; resolves to the process exit code (src/cli/exit-codes.ts). */
export async function main(argv: readonly string[]): Promise<number> {
  const outcome = { code: EXIT.ok as number };
  const program = new Command('cobweb')
    .description('a web crawler: one command on one machine, with an embedded store that resumes')
    .version(VERSION)
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput(oneLineErrors)
    .addCommand(crawlCommand(outcome))
    .addCommand(serverCommand(outcome))
    .addCommand(bunnyCommand(outcome))
    .addCommand(reportCommand(outcome));
  for (const command of controlCommands(outcome)) program.addCommand(command);
  for (const cmd of program.commands) cmd.exitOverride().configureOutput(oneLineErrors);
  try {
    await program.parseAsync(argv);
    return outcome.code;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end by "throwing" with code 0
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof CrawlOptionError) {
      process.stderr.write(`cobweb: ${err.message}\n`);
      return EXIT.usage;
    }
    // A connection string that cannot work (bad password, no such database): the command's fault.
    if (err instanceof PostgresConfigError) {
      process.stderr.write(`cobweb: ${err.message}\n`);
      return EXIT.usage;
    }
    if (err instanceof DataDirBusyError || err instanceof PostgresUnreachableError) {
      process.stderr.write(`cobweb: ${err.message}\n`);
      return EXIT.failed;
    }
    throw err;
  }
}
