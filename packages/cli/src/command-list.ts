import type { CommandSpec, EnvironmentHelp, OptionHelp } from "./registry.js"

const org: OptionHelp = { flags: "--org <id|slug>", description: "The organization (default: $CORE_ORG, else the session's active one)" }
const limit: OptionHelp = { flags: "--limit <n>", description: "Show at most n rows" }
const yes: OptionHelp = { flags: "--yes", description: "Do it without asking (needed when there is no terminal to ask on)" }
const pages: OptionHelp = { flags: "--cursor <c>, --all", description: "The next page, or every page" }
const platformFlag: OptionHelp = { flags: "--platform <id>", description: "The platform (default: the one you logged in to)" }

const coreOrg: EnvironmentHelp = { name: "CORE_ORG", description: "The organization when --org is not given (an org_… id or a slug)" }
const home: EnvironmentHelp = { name: "HOME", description: "Credentials are read from and written to $HOME/.core/credentials.json" }
const apiUrl: EnvironmentHelp = { name: "CORE_API_URL", description: "The gateway address (default: http://localhost:8787)" }
const iamUrl: EnvironmentHelp = { name: "CORE_IAM_URL", description: "The identity service address (default: $CORE_API_URL/api/v1/iam)" }

/** Every command, in the order `core --help` lists them. A new group is one entry here and one file. */
export const commands: ReadonlyArray<CommandSpec> = [
  {
    name: "help",
    summary: "Show help for core, for one command or for one subcommand",
    usage: "core help [command] [subcommand]",
    options: [],
    examples: ["core help keys", "core help keys create"],
    environment: [],
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
    examples: ["core login", "CORE_API_URL=http://localhost:8787 core login", "printf '%s' \"$CORE_API_KEY\" | core login --token -"],
    environment: [apiUrl, iamUrl, { name: "BROWSER", description: "The program that opens the approval page" }, home],
    load: () => import("./commands/login.js")
  },
  {
    name: "logout",
    summary: "Log out: end the session and clear ~/.core/credentials.json",
    usage: "core logout",
    options: [],
    examples: ["core logout"],
    environment: [home],
    load: () => import("./commands/logout.js")
  },
  {
    name: "whoami",
    summary: "Show who is logged in (email, platform, role, expiry)",
    usage: "core whoami [--json]",
    options: [],
    examples: ["core whoami", "core whoami --json"],
    environment: [home],
    load: () => import("./commands/whoami.js")
  },
  {
    name: "orgs",
    summary: "List, create and show organizations",
    usage: "core orgs <list|create|get> [options]",
    options: [],
    subcommands: [
      { name: "list", summary: "Your organizations", usage: "core orgs list [--limit <n>]", options: [limit] },
      {
        name: "create",
        summary: "Create one (you become its owner)",
        usage: "core orgs create <name> [--slug <slug>]",
        options: [{ flags: "--slug <slug>", description: "Its slug (default: from the name)" }],
        examples: ["core orgs create \"Acme Robotics\" --slug acme"]
      },
      { name: "get", summary: "One organization with its members", usage: "core orgs get <slug>", options: [] }
    ],
    examples: ["core orgs list", "core orgs create \"Acme Robotics\"", "core orgs get acme-robotics"],
    environment: [home],
    load: () => import("./commands/orgs.js")
  },
  {
    name: "members",
    summary: "List members, remove one, change a role",
    usage: "core members <list|remove|role> [options]",
    options: [org],
    subcommands: [
      { name: "list", summary: "Members of the organization", usage: "core members list [--limit <n>] [--org <id|slug>]", options: [limit] },
      { name: "remove", summary: "Remove a member", usage: "core members remove <member id|email> [--yes] [--org <id|slug>]", options: [yes] },
      { name: "role", summary: "Set a member's role (owner, admin, member)", usage: "core members role <member id> <owner|admin|member> [--org <id|slug>]", options: [] }
    ],
    examples: ["core members list --org acme", "core members role mem_123 admin", "core members remove bob@example.com --yes"],
    environment: [coreOrg, home],
    load: () => import("./commands/members.js")
  },
  {
    name: "invitations",
    summary: "List, send and revoke invitations",
    usage: "core invitations <list|create|revoke> [options]",
    options: [org],
    subcommands: [
      { name: "list", summary: "Invitations of the organization", usage: "core invitations list [--limit <n>] [--org <id|slug>]", options: [limit] },
      {
        name: "create",
        summary: "Invite someone",
        usage: "core invitations create <email> [--role owner|admin|member] [--org <id|slug>]",
        options: [{ flags: "--role <role>", description: "owner, admin or member (default: member)" }]
      },
      { name: "revoke", summary: "Revoke a pending invitation", usage: "core invitations revoke <invitation id> [--yes] [--org <id|slug>]", options: [yes] }
    ],
    examples: ["core invitations create bob@example.com --role admin --org acme", "core invitations list", "core invitations revoke inv_123 --yes"],
    environment: [coreOrg, home],
    load: () => import("./commands/invitations.js")
  },
  {
    name: "keys",
    summary: "List, create and revoke API keys",
    usage: "core keys <list|create|revoke> [options]",
    options: [org],
    subcommands: [
      { name: "list", summary: "API keys of the organization (never the keys themselves)", usage: "core keys list [--limit <n>] [--org <id|slug>]", options: [limit] },
      {
        name: "create",
        summary: "Create a key; it is shown once",
        usage: "core keys create [--name <name>] [--permission <permission>]… [--expires <ISO 8601>] [--org <id|slug>]",
        options: [
          { flags: "--name <name>", description: "A name to recognise it by" },
          {
            flags: "--permission <permission>",
            description: "A permission it carries, e.g. entities:manage (repeatable; default: every :read permission you hold — platforms:read, entities:read, …)"
          },
          { flags: "--expires <ISO 8601>", description: "When it stops working (default: never)" }
        ],
        examples: ["core keys create --name ci --permission members:read", "core keys create --name deploy --expires 2030-01-01T00:00:00Z --json"]
      },
      { name: "revoke", summary: "Revoke a key", usage: "core keys revoke <key id> [--yes]", options: [yes] }
    ],
    examples: ["core keys list --org acme", "core keys create --name ci --permission members:read", "core keys revoke key_123 --yes"],
    environment: [coreOrg, home],
    load: () => import("./commands/keys.js")
  },
  {
    name: "roles",
    summary: "List, set and delete role-to-permission mappings",
    usage: "core roles <list|set|delete> [options]",
    options: [org],
    subcommands: [
      { name: "list", summary: "Role mappings of the organization", usage: "core roles list [--limit <n>] [--org <id|slug>]", options: [limit] },
      { name: "set", summary: "Create or replace a role's permissions", usage: "core roles set <role> [permission…] [--org <id|slug>]", options: [] },
      { name: "delete", summary: "Delete a role mapping", usage: "core roles delete <role> [--yes] [--org <id|slug>]", options: [yes] }
    ],
    examples: ["core roles list", "core roles set auditor audit:read members:read", "core roles delete auditor --yes"],
    environment: [coreOrg, home],
    load: () => import("./commands/roles.js")
  },
  {
    name: "grants",
    summary: "List, create and delete permission grants and denials",
    usage: "core grants <list|create|delete> [options]",
    options: [org],
    subcommands: [
      {
        name: "list",
        summary: "Grants of the organization",
        usage: "core grants list [--user <user id>] [--limit <n>] [--org <id|slug>]",
        options: [{ flags: "--user <user id>", description: "Only this user's grants" }, limit]
      },
      {
        name: "create",
        summary: "Grant (or, with --deny, deny) a user one permission",
        usage: "core grants create --user <user id> --permission <permission> [--deny] [--expires <epoch seconds|ISO 8601>] [--org <id|slug>]",
        options: [
          { flags: "--user <user id>", description: "Who (required)" },
          { flags: "--permission <permission>", description: "What, e.g. billing:manage (required)" },
          { flags: "--deny", description: "A denial instead of a grant" },
          { flags: "--expires <time>", description: "When it ends: epoch seconds or ISO 8601 (default: never)" }
        ]
      },
      { name: "delete", summary: "Delete a grant or denial", usage: "core grants delete <grant id> [--yes]", options: [yes] }
    ],
    examples: ["core grants create --user usr_123 --permission billing:manage --expires 2030-01-01T00:00:00Z", "core grants list --user usr_123", "core grants delete grt_123 --yes"],
    environment: [coreOrg, home],
    load: () => import("./commands/grants.js")
  },
  {
    name: "audit",
    summary: "Read the audit log",
    usage: "core audit list [options]",
    options: [],
    subcommands: [
      {
        name: "list",
        summary: "Entries, newest first: one page, or every page with --all",
        usage: "core audit list [--org <id|slug>] [--actor <user id|me>] [--action <action|prefix.*>] [--from <ISO>] [--to <ISO>] [--limit <n>] [--cursor <c>] [--all]",
        options: [
          { flags: "--org <id|slug>", description: "Entries of one organization (default: $CORE_ORG, else your own entries)" },
          { flags: "--actor <user id|me>", description: "Entries by one actor" },
          { flags: "--action <action|prefix.*>", description: "One action, or a prefix such as session.*" },
          { flags: "--from <ISO>, --to <ISO>", description: "Time range (from inclusive, to exclusive)" },
          { flags: "--limit <n>, --cursor <c>", description: "Page size (1-100) and the page to read" },
          { flags: "--all", description: "Every page" }
        ]
      }
    ],
    examples: ["core audit list --org acme --action apikey.*", "core audit list --actor me --from 2025-01-01T00:00:00Z --all --json"],
    environment: [coreOrg, home],
    load: () => import("./commands/audit.js")
  },
  {
    name: "stacks",
    summary: "The stack catalogue: list, show, create, publish and deprecate stack templates and versions",
    usage: "core stacks <list|show|create|publish|deprecate> [options]",
    options: [],
    subcommands: [
      { name: "list", summary: "The active templates and their latest versions", usage: "core stacks list [--limit <n>]", options: [limit] },
      { name: "show", summary: "One template, its latest version and every version", usage: "core stacks show <name>", options: [] },
      {
        name: "create",
        summary: "A new template (operators and the static key)",
        usage: "core stacks create <name> --display-name <text> --description <text> [--icon <url>] [--domain <domain>]",
        options: [
          { flags: "--display-name <text>", description: "1 to 128 characters" },
          { flags: "--description <text>", description: "1 to 1024 characters" },
          { flags: "--icon <url>, --domain <domain>", description: "Optional" }
        ]
      },
      {
        name: "publish",
        summary: "Publish a version from a stack definition file (JSON: { resources: [...] })",
        usage: "core stacks publish <name> <version> --file <definition.json> --sdk <core sdk version>",
        options: [
          { flags: "--file <path>", description: "The stack definition, as JSON ('-' reads stdin)" },
          { flags: "--sdk <version>", description: "The Core SDK version it needs (e.g. 1.0.0)" }
        ]
      },
      {
        name: "deprecate",
        summary: "Deprecate a version, or the whole template when no version is given",
        usage: "core stacks deprecate <name> [version] [--yes]",
        options: [yes]
      }
    ],
    examples: [
      "core stacks list",
      "core stacks publish web-app 1.2.0 --file stack.json --sdk 1.0.0",
      "core stacks deprecate web-app 1.1.0 --yes"
    ],
    environment: [apiUrl, home],
    load: () => import("./commands/stacks.js")
  },
  {
    name: "billing",
    summary: "Billing: the subscription, plans, usage with a daily chart, invoices, the upgrade",
    usage: "core billing <status|plans|usage|invoices|upgrade> [options]",
    options: [],
    subcommands: [
      { name: "status", summary: "The platform's subscription: plan, status, period", usage: "core billing status [--platform <id>]", options: [platformFlag] },
      { name: "plans", summary: "The plans with their prices and allowances", usage: "core billing plans", options: [] },
      {
        name: "invoices",
        summary: "The platform's invoices, newest first",
        usage: "core billing invoices [--platform <id>] [--limit <n>] [--cursor <c>]",
        options: [platformFlag, limit, { flags: "--cursor <c>", description: "The next page's cursor" }]
      },
      {
        name: "upgrade",
        summary: "Upgrade a free platform to a paid plan (idempotent by key)",
        usage: "core billing upgrade <starter|growth|scale> --payment-method <pm> --email <email> [--idempotency-key <uuid>]",
        options: [
          { flags: "--payment-method <pm>", description: "A payment method: pm_card_visa, or a test card number on the local provider (required)" },
          { flags: "--email <email>", description: "The billing email (required)" },
          { flags: "--idempotency-key <uuid>", description: "Retry safely with the key a first attempt printed (default: a new one)" }
        ]
      },
      {
        name: "usage",
        summary: "This period's usage against the allowances, then one meter per day as a chart",
        usage: "core billing usage [--platform <id>] [--days <n> | --from <date> --to <date>] [--meter <requests|resource_hours|builds>] [--tenant <id>]",
        options: [
          platformFlag,
          { flags: "--days <n>", description: "Chart the last n days, 1 to 366 (default 30)" },
          { flags: "--from <date>, --to <date>", description: "Chart these days instead (YYYY-MM-DD, at most 366)" },
          { flags: "--meter <meter>", description: "requests (default), resource_hours or builds" },
          { flags: "--tenant <id>", description: "One tenant's usage" }
        ]
      }
    ],
    examples: ["core billing status", "core billing plans --json", "core billing upgrade growth --payment-method pm_card_visa --email billing@acme.example", "core billing invoices --limit 5", "core billing usage", "core billing usage --meter builds --days 14", "core billing usage --from 2026-11-01 --to 2026-11-25 --json"],
    environment: [apiUrl, home],
    load: () => import("./commands/billing.js")
  },
  {
    name: "platforms",
    summary: "The platform registry: list, show, create, and move platforms through their lifecycle",
    usage: "core platforms <list|show|create|suspend|restore|cancel|delete> [options]",
    options: [],
    subcommands: [
      {
        name: "list",
        summary: "Your platforms (operators: all), one page or --all",
        usage: "core platforms list [--limit <n>] [--status <s>] [--tier <t>] [--cursor <c>] [--all]",
        options: [limit, { flags: "--cursor <c>, --all", description: "The next page, or every page" }]
      },
      { name: "show", summary: "One platform", usage: "core platforms show <platform-id>", options: [] },
      { name: "create", summary: "A new platform (operators)", usage: "core platforms create <slug> --name <text> [--tier <t>] [--owner <user-id>]", options: [] },
      ...Object.entries({ suspend: "Suspend an active platform", restore: "Restore a suspended platform", cancel: "Cancel a platform (asks first)", delete: "Hard-delete a platform (asks first)" }).map(([name, summary]) => ({
        name,
        summary,
        usage: `core platforms ${name} <platform-id> [--reason <text>]${name === "cancel" || name === "delete" ? " [--yes]" : ""}`,
        options: [{ flags: "--reason <text>", description: "Recorded in its lifecycle" }, ...(name === "cancel" || name === "delete" ? [yes] : [])]
      }))
    ],
    examples: ["core platforms list --status active", "core platforms cancel plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS --yes"],
    environment: [apiUrl, home],
    load: () => import("./commands/platforms.js")
  },
  {
    name: "tenants",
    summary: "A platform's tenants and subtenants: list, show, create, rename, delete, and draw the tree",
    usage: "core tenants <list|show|create|rename|delete|tree> [options]",
    options: [{ flags: "--platform <id>", description: "The platform (default: the one you logged in to)" }],
    subcommands: [
      {
        name: "list",
        summary: "Live tenants (--status deleted: deleted ones), one page or --all",
        usage: "core tenants list [--type tenant|subtenant] [--status <s>] [--parent <entity-id>] [--limit <n>] [--cursor <c>] [--all]",
        options: [limit, { flags: "--cursor <c>, --all", description: "The next page, or every page" }]
      },
      { name: "show", summary: "One tenant and its path from the root", usage: "core tenants show <entity-id>", options: [] },
      {
        name: "create",
        summary: "A tenant, or with --parent a subtenant",
        usage: "core tenants create <slug> --name <text> [--parent <entity-id>]",
        options: [{ flags: "--parent <entity-id>", description: "Create it under this one (16 levels at most)" }]
      },
      { name: "rename", summary: "Rename a tenant", usage: "core tenants rename <entity-id> <name>", options: [] },
      {
        name: "delete",
        summary: "Soft-delete a tenant (asks first)",
        usage: "core tenants delete <entity-id> [--cascade] [--yes]",
        options: [{ flags: "--cascade", description: "Delete its descendants too (else refused while it has any)" }, yes]
      },
      { name: "tree", summary: "The tree of every live tenant, or of one", usage: "core tenants tree [entity-id]", options: [] }
    ],
    examples: ["core tenants create acme --name \"Acme\"", "core tenants tree --platform plt_01JDQ3V6X4TQ7K9ZC2M8N5P0RS", "core tenants delete ent_01JDQ3V6X4TQ7K9ZC2M8N5P0RS --cascade --yes"],
    environment: [apiUrl, home],
    load: () => import("./commands/tenants.js")
  },
  {
    name: "resources",
    summary: "A platform's resources: list, show, create, set a status, delete, look up by edge name, and their secrets",
    usage: "core resources <list|show|create|set-status|delete|lookup|secrets> [options]",
    options: [platformFlag],
    subcommands: [
      {
        name: "list",
        summary: "Live resources (--status deleted: deleted ones), of the platform or --entity, one page or --all",
        usage: "core resources list [--entity <entity-id>] [--type <t>] [--environment dev|stg|prod] [--status <s>] [--limit <n>] [--cursor <c>] [--all]",
        options: [limit, pages]
      },
      { name: "show", summary: "One resource", usage: "core resources show <resource-id>", options: [] },
      {
        name: "create",
        summary: "Record a resource of an entity (pending until provisioned)",
        usage: "core resources create <edge-name> --entity <entity-id> --stack <stack-id> --type <t> --service <name> --environment dev|stg|prod [--url <edge-url>]",
        options: [{ flags: "--type <t>", description: "worker, pages, sql_db, object_store, kv or queue" }]
      },
      {
        name: "set-status",
        summary: "Set a live resource's status (an operator's repair)",
        usage: "core resources set-status <resource-id> <pending|provisioning|active|failed|deleted> [--if-match <etag>]",
        options: [{ flags: "--if-match <etag>", description: "Only if it has not changed since (else 412)" }]
      },
      { name: "delete", summary: "Soft-delete a resource (asks first)", usage: "core resources delete <resource-id> [--yes]", options: [yes] },
      { name: "lookup", summary: "The live resource of an edge name", usage: "core resources lookup <edge-name>", options: [] },
      {
        name: "secrets",
        summary: "A resource's secrets: names and when set (values are never shown)",
        usage: "core resources secrets <list|set|delete> <resource-id> [name] [options]",
        options: [
          { flags: "--status active|deleted, --limit <n>, --cursor <c>, --all", description: "list: which secrets, one page or every page" },
          { flags: "--value-file <path>", description: "set: read the value from this file (default: stdin; never from the command line)" },
          { flags: "--yes", description: "delete: without asking" }
        ],
        examples: ["core resources secrets list res_123", "printf '%s' \"$TOKEN\" | core resources secrets set res_123 API_TOKEN", "core resources secrets delete res_123 API_TOKEN --yes"]
      }
    ],
    examples: ["core resources list --environment prod", "core resources create acme-api --entity ent_123 --stack web-app --type worker --service api --environment prod", "core resources lookup acme-api --json"],
    environment: [apiUrl, home],
    load: () => import("./commands/resources.js")
  },
  {
    name: "features",
    summary: "An entity's features: list, activate (and --wait), deactivate, show, and its manifest",
    usage: "core features <list|activate|deactivate|show|manifest> [options]",
    options: [platformFlag, { flags: "--entity <entity-id>", description: "The entity (default: the platform's default tenant)" }],
    subcommands: [
      {
        name: "list",
        summary: "Activations in every environment (or --environment), one page or --all",
        usage: "core features list [--environment <e>] [--status <s>] [--feature <id>] [--limit <n>] [--cursor <c>] [--all]",
        options: [limit, pages]
      },
      {
        name: "activate",
        summary: "Activate a feature; --wait follows it until active or failed",
        usage: "core features activate <feature-id> --version <v> [--environment dev|stg|prod] [--config <json>] [--wait] [--timeout <seconds>]",
        options: [
          { flags: "--environment <e>", description: "dev, stg or prod (default: prod)" },
          { flags: "--config <json>", description: "A JSON object (package, serviceUrl, ...)" },
          { flags: "--wait, --timeout <s>", description: "Wait until it is active or failed, progress on stderr (default 120 s)" }
        ]
      },
      { name: "deactivate", summary: "Deactivate a feature", usage: "core features deactivate <feature-id> [--environment dev|stg|prod]", options: [] },
      { name: "show", summary: "One activation", usage: "core features show <activation-id>", options: [] },
      { name: "manifest", summary: "The active features of an environment (default prod)", usage: "core features manifest [--environment dev|stg|prod]", options: [] }
    ],
    examples: ["core features activate billing --version 1.2.0 --wait", "core features manifest --environment stg --json"],
    environment: [apiUrl, home],
    load: () => import("./commands/features.js")
  },
  {
    name: "jobs",
    summary: "Provisioning jobs: list, show, watch live until they end, retry and cancel (operators)",
    usage: "core jobs <list|show|watch|retry|cancel> [options]",
    options: [],
    subcommands: [
      {
        name: "list",
        summary: "Jobs, newest first, of --platform (default: the login's; operators without one: every platform), one page or --all",
        usage: "core jobs list [--platform <id>] [--status QUEUED|RUNNING|COMPLETED|FAILED] [--limit <n>] [--cursor <c>] [--all]",
        options: [platformFlag, { flags: "--status <s>", description: "QUEUED, RUNNING, COMPLETED or FAILED" }, limit, pages]
      },
      { name: "show", summary: "One job: status, attempts, steps, progress, result", usage: "core jobs show <job-id>", options: [] },
      {
        name: "watch",
        summary: "Follow a job's events until it ends: live steps on a terminal, one line per event when piped; exit 0 COMPLETED, 1 FAILED",
        usage: "core jobs watch <job-id> [--timeout <seconds>]",
        options: [{ flags: "--timeout <s>", description: "Give up (exit 1) after this many seconds (default: wait until it ends)" }]
      },
      {
        name: "retry",
        summary: "Queue a FAILED job again (operators)",
        usage: "core jobs retry <job-id> [--reason <text>]",
        options: [{ flags: "--reason <text>", description: "Recorded in the job's events" }]
      },
      {
        name: "cancel",
        summary: "Cancel a QUEUED or RUNNING job: it becomes FAILED (operators; asks first)",
        usage: "core jobs cancel <job-id> [--reason <text>] [--yes]",
        options: [{ flags: "--reason <text>", description: "Recorded in the job's events" }, yes]
      }
    ],
    examples: ["core jobs list --status FAILED", "core jobs watch job_01JDQ3V6X4TQ7K9ZC2M8N5P0RS", "core jobs retry job_01JDQ3V6X4TQ7K9ZC2M8N5P0RS --reason \"edge fixed\""],
    environment: [apiUrl, home],
    load: () => import("./commands/jobs.js")
  },
  {
    name: "dlq",
    summary: "The dead-letter list (operators): jobs that failed for good, and their replay",
    usage: "core dlq <list|replay> [options]",
    options: [],
    subcommands: [
      { name: "list", summary: "Dead letters, oldest failure first, one page or --all", usage: "core dlq list [--limit <n>] [--cursor <c>] [--all]", options: [limit, pages] },
      {
        name: "replay",
        summary: "Replay a dead letter as a new job of the same type and payload",
        usage: "core dlq replay <entry-id> [--reason <text>]",
        options: [{ flags: "--reason <text>", description: "Recorded in the new job's events" }]
      }
    ],
    examples: ["core dlq list --json", "core dlq replay dlq_01JDQ3V6X4TQ7K9ZC2M8N5P0RS"],
    environment: [apiUrl, home],
    load: () => import("./commands/dlq.js")
  },
  {
    name: "vault",
    summary: "Core's architecture docs: ranked search and reading through the vault tool server (/mcp)",
    usage: "core vault <search|read> [options]",
    options: [],
    subcommands: [
      {
        name: "search",
        summary: "Ranked full-text search; the last word also matches as a prefix",
        usage: "core vault search <query> [--category <c>] [--limit <n>]",
        options: [
          { flags: "--category <c>", description: "services, concepts, cross-cutting, guides, rules, decisions or implementation" },
          { flags: "--limit <n>", description: "At most n results (1 to 100, default 10)" }
        ]
      },
      { name: "read", summary: "A whole document, by its path without .md", usage: "core vault read <path>", options: [] }
    ],
    examples: ["core vault search \"rate limit\"", "core vault search tenancy --category cross-cutting --json", "core vault read services/gateway"],
    environment: [apiUrl, home],
    load: () => import("./commands/vault.js")
  },
  {
    name: "deploy",
    summary: "Deploy a built site: upload what the server lacks, follow the deployment, print its URL",
    usage: "core deploy <dir> [--branch <b>] [--platform <id>] [--no-follow]",
    options: [
      { flags: "--branch <b>", description: "A preview branch (served at <b>.<project>.localhost); default: production" },
      platformFlag,
      { flags: "--no-follow", description: "Answer once the upload is accepted" }
    ],
    examples: ["core deploy dist", "core deploy dist --branch feature-x", "core deploy dist --json"],
    environment: [apiUrl, home],
    load: () => import("./commands/deploy.js")
  },
  {
    name: "deployments",
    summary: "A platform's deployments: list them, show one, roll back to one",
    usage: "core deployments <list|show|rollback> [options]",
    options: [platformFlag],
    subcommands: [
      { name: "list", summary: "Newest first", usage: "core deployments list [--limit <n>] [--cursor <c>] [--platform <id>]", options: [limit, platformFlag] },
      { name: "show", summary: "One deployment's status", usage: "core deployments show <deployment-id> [--platform <id>]", options: [platformFlag] },
      { name: "rollback", summary: "Make an earlier successful deployment live again", usage: "core deployments rollback <deployment-id> [--platform <id>]", options: [platformFlag] }
    ],
    examples: ["core deployments list", "core deployments rollback dep_01J..."],
    environment: [apiUrl, home],
    load: () => import("./commands/deployments.js")
  },
  {
    name: "secrets",
    summary: "The platform's worker secrets: set them (NAME=value or stdin), list their names",
    usage: "core secrets <set|list> [options]",
    options: [platformFlag],
    subcommands: [
      { name: "set", summary: "Set one or more secrets; 'set NAME' reads the value from stdin", usage: "core secrets set <NAME=value|NAME>... [--platform <id>]", options: [platformFlag] },
      { name: "list", summary: "Names and when each was last set (never values)", usage: "core secrets list [--platform <id>]", options: [platformFlag] }
    ],
    examples: ["core secrets set API_URL=https://api.example.com", "printf '%s' \"$TOKEN\" | core secrets set API_TOKEN", "core secrets list --json"],
    environment: [apiUrl, home],
    load: () => import("./commands/secrets.js")
  }
]
