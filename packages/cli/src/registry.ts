import { usageError, type CliError } from "./errors.js"
import type { Ui } from "./ui.js"

/** What a command receives when it runs. */
export interface CommandContext {
  /** The arguments after the command name, without the global options. */
  readonly argv: ReadonlyArray<string>
  readonly ui: Ui
  readonly env: Readonly<Record<string, string | undefined>>
}

/** A command's implementation, loaded only when the command runs. */
export interface CommandModule {
  /** Runs the command and answers its exit code. */
  readonly run: (context: CommandContext) => Promise<number>
}

/** One option in a command's help. */
export interface OptionHelp {
  readonly flags: string
  readonly description: string
}

/** A command group: its help, and a lazy loader for its code (one file under `commands/`). */
export interface CommandSpec {
  readonly name: string
  /** One line for `core --help`. */
  readonly summary: string
  /** E.g. `core help [command]`. */
  readonly usage: string
  readonly options: ReadonlyArray<OptionHelp>
  readonly load: () => Promise<CommandModule>
}

/** The options every command understands. */
export const globalOptions: ReadonlyArray<OptionHelp> = [
  { flags: "-h, --help", description: "Show help (also: core <command> --help)" },
  { flags: "-v, --version", description: "Print the version of core" },
  { flags: "--json", description: "Print JSON on stdout instead of text, for scripts" }
]

/** Every command, in the order `core --help` lists them. A new group is one entry here and one file. */
export const commands: ReadonlyArray<CommandSpec> = [
  {
    name: "help",
    summary: "Show help for core or for one command",
    usage: "core help [command]",
    options: [],
    load: () => import("./commands/help.js")
  },
  {
    name: "login",
    summary: "Log in: approve this device in a browser, or store a token (--token)",
    usage: "core login [--token <token>] [--iam-url <url>] [--no-browser]",
    options: [
      { flags: "--token <token>", description: "Store this API key or session token instead of logging in interactively ('-' reads stdin)" },
      { flags: "--iam-url <url>", description: "Identity service address (default: $CORE_IAM_URL, else <api url>/api/v1/iam)" },
      { flags: "--no-browser", description: "Print the address and code without opening a browser" }
    ],
    load: () => import("./commands/login.js")
  },
  {
    name: "logout",
    summary: "Log out: end the session and clear ~/.core/credentials.json",
    usage: "core logout",
    options: [],
    load: () => import("./commands/logout.js")
  },
  {
    name: "whoami",
    summary: "Show who is logged in (email, platform, role, expiry)",
    usage: "core whoami [--json]",
    options: [],
    load: () => import("./commands/whoami.js")
  },
  {
    name: "orgs",
    summary: "List, create and show organizations",
    usage: "core orgs <list|create|get> [options]",
    options: [
      { flags: "list", description: "Your organizations" },
      { flags: "create <name>", description: "Create one (you become its owner); --slug <slug> (default: from the name)" },
      { flags: "get <slug>", description: "One organization with its members" }
    ],
    load: () => import("./commands/orgs.js")
  },
  {
    name: "members",
    summary: "List members, remove one, change a role",
    usage: "core members <list|remove|role> [options]",
    options: [
      { flags: "list", description: "Members of the organization" },
      { flags: "remove <member id|email>", description: "Remove a member" },
      { flags: "role <member id> <role>", description: "Set a member's role (owner, admin, member)" },
      { flags: "--org <id|slug>", description: "The organization (default: $CORE_ORG, else the session's active one)" }
    ],
    load: () => import("./commands/members.js")
  },
  {
    name: "invitations",
    summary: "List, send and revoke invitations",
    usage: "core invitations <list|create|revoke> [options]",
    options: [
      { flags: "list", description: "Invitations of the organization" },
      { flags: "create <email>", description: "Invite someone; --role owner|admin|member (default member)" },
      { flags: "revoke <invitation id>", description: "Revoke a pending invitation" },
      { flags: "--org <id|slug>", description: "The organization (default: $CORE_ORG, else the session's active one)" }
    ],
    load: () => import("./commands/invitations.js")
  },
  {
    name: "keys",
    summary: "List, create and revoke API keys",
    usage: "core keys <list|create|revoke> [options]",
    options: [
      { flags: "list", description: "API keys of the organization (never the keys themselves)" },
      { flags: "create", description: "Create a key, shown once; --name, --permission (repeatable), --expires <ISO 8601>" },
      { flags: "revoke <key id>", description: "Revoke a key" },
      { flags: "--org <id|slug>", description: "The organization (default: $CORE_ORG, else the session's active one)" }
    ],
    load: () => import("./commands/keys.js")
  },
  {
    name: "roles",
    summary: "List, set and delete role-to-permission mappings",
    usage: "core roles <list|set|delete> [options]",
    options: [
      { flags: "list", description: "Role mappings of the organization" },
      { flags: "set <role> [permission…]", description: "Create or replace a role's permissions" },
      { flags: "delete <role>", description: "Delete a role mapping" },
      { flags: "--org <id|slug>", description: "The organization (default: $CORE_ORG, else the session's active one)" }
    ],
    load: () => import("./commands/roles.js")
  },
  {
    name: "grants",
    summary: "List, create and delete permission grants and denials",
    usage: "core grants <list|create|delete> [options]",
    options: [
      { flags: "list", description: "Grants of the organization; --user <user id> to filter" },
      { flags: "create", description: "--user <id> --permission <p> [--deny] [--expires <epoch s|ISO 8601>]" },
      { flags: "delete <grant id>", description: "Delete a grant or denial" },
      { flags: "--org <id|slug>", description: "The organization (default: $CORE_ORG, else the session's active one)" }
    ],
    load: () => import("./commands/grants.js")
  },
  {
    name: "audit",
    summary: "Read the audit log",
    usage: "core audit list [options]",
    options: [
      { flags: "--org <org id>", description: "Entries of one organization" },
      { flags: "--actor <user id|me>", description: "Entries by one actor" },
      { flags: "--action <action|prefix.*>", description: "One action, or a prefix such as session.*" },
      { flags: "--from <ISO>, --to <ISO>", description: "Time range (from inclusive, to exclusive)" },
      { flags: "--limit <n>, --cursor <c>", description: "Page size (1-100) and the page to read" },
      { flags: "--all", description: "Every page" }
    ],
    load: () => import("./commands/audit.js")
  }
]

/** The command called `name`, if there is one. */
export const findCommand = (name: string): CommandSpec | undefined => commands.find((command) => command.name === name)

const distance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]
}

/** The closest command name to a mistyped one (at most two edits away), if any. */
export const suggestCommand = (name: string): string | undefined =>
  commands
    .map((command) => ({ name: command.name, distance: distance(name.toLowerCase(), command.name) }))
    .filter((candidate) => candidate.distance <= 2)
    .sort((a, b) => a.distance - b.distance)[0]?.name

/** The usage error for a command that does not exist, with a suggestion when one is close. */
export const unknownCommand = (name: string): CliError => {
  const suggestion = suggestCommand(name)
  return usageError(
    `Unknown command '${name}'.${suggestion ? ` Did you mean '${suggestion}'?` : ""} Run 'core --help' for the list of commands.`,
    "UNKNOWN_COMMAND"
  )
}
