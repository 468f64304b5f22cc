export * from "./Envelope.js"
