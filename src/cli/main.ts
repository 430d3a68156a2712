import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.js';
import { EXIT, exitCodeOfError } from './exit-codes.js';

// The launcher hands the bundle a way to import module files (see import-module.ts).
export { setModuleImporter } from '../modules/import-module.js';

type Outcome = { code: number };
type MakeCommands = (outcome: Outcome) => Command[];

/**
 * Each command's code, loaded only when the command line names it: a one-page crawl
 * does not pay for loading the server, the bunny or the control commands (or what they
 * import). Help, a typo or no command at all loads them all.
 */
const COMMANDS: Record<string, () => Promise<MakeCommands>> = {
  crawl: async () => {
    const { crawlCommand } = await import('./crawl-command.js');
    return (o) => [crawlCommand(o)];
  },
  server: async () => {
    const { serverCommand } = await import('./server-command.js');
    return (o) => [serverCommand(o)];
  },
  bunny: async () => {
    const { bunnyCommand } = await import('./bunny-command.js');
    return (o) => [bunnyCommand(o)];
  },
  report: async () => {
    const { reportCommand } = await import('./report-command.js');
    return (o) => [reportCommand(o)];
  },
  config: async () => {
    const { configCommand } = await import('./config-command.js');
    return (o) => [configCommand(o)];
  },
  reset: async () => {
    const { resetCommand } = await import('./reset-command.js');
    return (o) => [resetCommand(o)];
  },
};
const CONTROL_COMMANDS = ['show', 'quit', 'modstat', 'log', 'read', 'loadmod'];
const loadControlCommands = async (): Promise<MakeCommands> =>
  (await import('./control-commands.js')).controlCommands;
for (const name of CONTROL_COMMANDS) COMMANDS[name] = loadControlCommands;

/** The commands to build for this command line: the one it names, or all of them (in help's order). */
async function commandsFor(argv: readonly string[]): Promise<MakeCommands[]> {
  const named = argv[2];
  // `cobweb --version` alone needs no command: loading them all took 0.17 s.
  if (argv.length === 3 && (named === '--version' || named === '-V')) return [];
  const one = named === undefined || !Object.hasOwn(COMMANDS, named) ? undefined : COMMANDS[named];
  if (one !== undefined) return [await one()];
  const loaders = [...new Set(Object.values(COMMANDS))];
  return Promise.all(loaders.map((load) => load()));
}

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
    .configureOutput(oneLineErrors);
  for (const make of await commandsFor(argv))
    for (const command of make(outcome)) program.addCommand(command);
  for (const cmd of program.commands) cmd.exitOverride().configureOutput(oneLineErrors);
  try {
    await program.parseAsync(argv);
    return outcome.code;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end by "throwing" with code 0
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    // One of cobweb's own errors: its line, and the exit code its code has (exit-codes.ts).
    const code = exitCodeOfError(err);
    if (code !== null) {
      process.stderr.write(`cobweb: ${(err as Error).message}\n`);
      return code;
    }
    throw err;
  }
}
