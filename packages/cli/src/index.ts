/**
 * @core/cli — the `core` command. The binary is `bin/core.mjs`; `run` is the same program without
 * a process around it.
 */
export { run, type Io } from "./run.js"
export { CliError, ExitCode } from "./errors.js"
export type { CommandContext, CommandModule, CommandSpec } from "./registry.js"
