import type { Migrations } from "@core/kernel"
import events from "./0001_events.js"

/** The events service's migrations (schema `events`). */
export const EventsMigrations: Migrations.Domain = {
  schema: "events",
  migrations: {
    "0001_events": events
  }
}
