export * from "./catalogue.js"
export * from "./schemas.js"
export * from "./routes.js"
