import type { Migrations } from "@core/kernel"
import platforms from "./0001_platforms.js"

/** The registry's migrations (schema `registry`). */
export const RegistryMigrations: Migrations.Domain = {
  schema: "registry",
  migrations: {
    "0001_platforms": platforms
  }
}
