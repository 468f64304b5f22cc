import type { Migrations } from "@core/kernel"
import deploy from "./0001_deploy.js"

/** The command-line backend's migrations (schema `deploy`). */
export const DeployMigrations: Migrations.Domain = {
  schema: "deploy",
  migrations: {
    "0001_deploy": deploy
  }
}
