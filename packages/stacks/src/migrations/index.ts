import type { Migrations } from "@core/kernel"
import stacks from "./0001_stacks.js"

/** The stack catalogue's migrations (schema `stacks`). */
export const StacksMigrations: Migrations.Domain = {
  schema: "stacks",
  migrations: {
    "0001_stacks": stacks
  }
}
