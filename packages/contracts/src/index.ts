export * from "./Envelope.js"
export * from "./Ids.js"
export * as Iam from "./iam/index.js"
