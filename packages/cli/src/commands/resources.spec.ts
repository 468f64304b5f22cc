import { limit, yes, pages, platformFlag, home, apiUrl } from "../help-options.js"
import type { CommandHelp } from "../spec.js"

/** `core resources`: its help, which `core --help` and the command itself read (its code loads only when it runs). */
export const spec: CommandHelp = {
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
  environment: [apiUrl, home]
}
