/**
 * @core/billing — see README.md. The domain arrives with its issue; until then it holds only its own
 * settings (`BillingConfig`: the Stripe keys), which the server reads and checks at start.
 */
export { BillingConfig, type BillingSettings } from "./Config.js"
