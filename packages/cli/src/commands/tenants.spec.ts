import { limit, yes, home, apiUrl } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core tenants`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
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
  environment: [apiUrl, home]
}
