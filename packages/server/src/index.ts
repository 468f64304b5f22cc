/**
 * @core/server — composition: the all-in-one server, one service per process, migrations,
 * backup and restore. The `core-server` bin is the usual entry; these modules let a host compose
 * the same pieces.
 */
export * as Embedded from "./Embedded.js"
export * as Health from "./Health.js"
export * as Listener from "./Listener.js"
export * as Migrations from "./Migrations.js"
export * as Services from "./Services.js"
export * as Settings from "./Settings.js"
export { start } from "./Start.js"
