export * from "./Envelope.js"
export * as Iam from "./iam/index.js"
