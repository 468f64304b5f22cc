import { type CliError } from "./errors.js"
import { spec as helpSpec } from "./commands/help.spec.js"
import { spec as loginSpec } from "./commands/login.spec.js"
import { spec as logoutSpec } from "./commands/logout.spec.js"
import { spec as whoamiSpec } from "./commands/whoami.spec.js"
import { spec as orgsSpec } from "./commands/orgs.spec.js"
import { spec as membersSpec } from "./commands/members.spec.js"
import { spec as invitationsSpec } from "./commands/invitations.spec.js"
import { spec as keysSpec } from "./commands/keys.spec.js"
import { spec as rolesSpec } from "./commands/roles.spec.js"
import { spec as grantsSpec } from "./commands/grants.spec.js"
import { spec as auditSpec } from "./commands/audit.spec.js"
import { spec as stacksSpec } from "./commands/stacks.spec.js"
import { spec as billingSpec } from "./commands/billing.spec.js"
import { spec as platformsSpec } from "./commands/platforms.spec.js"
import { spec as tenantsSpec } from "./commands/tenants.spec.js"
import { spec as resourcesSpec } from "./commands/resources.spec.js"
import { spec as featuresSpec } from "./commands/features.spec.js"
import { spec as jobsSpec } from "./commands/jobs.spec.js"
import { spec as dlqSpec } from "./commands/dlq.spec.js"
import { spec as vaultSpec } from "./commands/vault.spec.js"
import { spec as deploySpec } from "./commands/deploy.spec.js"
import { spec as deploymentsSpec } from "./commands/deployments.spec.js"
import { spec as secretsSpec } from "./commands/secrets.spec.js"
import { spec as webhooksSpec } from "./commands/webhooks.spec.js"
import { spec as eventsSpec } from "./commands/events.spec.js"
import { spec as listenSpec } from "./commands/listen.spec.js"
import { type CommandSpec, unknownCommandIn } from "./spec.js"
import { closest } from "./suggest.js"

export {
  type CommandContext,
  type CommandHelp,
  type CommandModule,
  type CommandSpec,
  type EnvironmentHelp,
  globalEnvironment,
  globalOptions,
  type OptionHelp,
  type SubcommandSpec,
  unknownSubcommand,
  usageIn
} from "./spec.js"

/**
 * Every command, in the order `core --help` lists them: each one's help from its
 * `commands/<name>.spec.ts`, its code loaded only when it runs. A new command is its two files and
 * one line here.
 */
export const commands: ReadonlyArray<CommandSpec> = [
  { ...helpSpec, load: () => import("./commands/help.js") },
  { ...loginSpec, load: () => import("./commands/login.js") },
  { ...logoutSpec, load: () => import("./commands/logout.js") },
  { ...whoamiSpec, load: () => import("./commands/whoami.js") },
  { ...orgsSpec, load: () => import("./commands/orgs.js") },
  { ...membersSpec, load: () => import("./commands/members.js") },
  { ...invitationsSpec, load: () => import("./commands/invitations.js") },
  { ...keysSpec, load: () => import("./commands/keys.js") },
  { ...rolesSpec, load: () => import("./commands/roles.js") },
  { ...grantsSpec, load: () => import("./commands/grants.js") },
  { ...auditSpec, load: () => import("./commands/audit.js") },
  { ...stacksSpec, load: () => import("./commands/stacks.js") },
  { ...billingSpec, load: () => import("./commands/billing.js") },
  { ...platformsSpec, load: () => import("./commands/platforms.js") },
  { ...tenantsSpec, load: () => import("./commands/tenants.js") },
  { ...resourcesSpec, load: () => import("./commands/resources.js") },
  { ...featuresSpec, load: () => import("./commands/features.js") },
  { ...jobsSpec, load: () => import("./commands/jobs.js") },
  { ...dlqSpec, load: () => import("./commands/dlq.js") },
  { ...vaultSpec, load: () => import("./commands/vault.js") },
  { ...deploySpec, load: () => import("./commands/deploy.js") },
  { ...deploymentsSpec, load: () => import("./commands/deployments.js") },
  { ...secretsSpec, load: () => import("./commands/secrets.js") },
  { ...webhooksSpec, load: () => import("./commands/webhooks.js") },
  { ...eventsSpec, load: () => import("./commands/events.js") },
  { ...listenSpec, load: () => import("./commands/listen.js") }
]

/** The command called `name`, if there is one. */
export const findCommand = (name: string): CommandSpec | undefined => commands.find((command) => command.name === name)

/** The closest command name to a mistyped one (at most two edits away), if any. */
export const suggestCommand = (name: string): string | undefined => closest(name, commands.map((command) => command.name))

/** The usage error for a command that does not exist, with a suggestion when one is close. */
export const unknownCommand = (name: string): CliError => unknownCommandIn(commands, name)
