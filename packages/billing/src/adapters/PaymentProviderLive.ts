import type { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { BillingConfig } from "../Config.js"
import type { PaymentProvider } from "../ports/PaymentProvider.js"
import { PaymentProviderLocal } from "./PaymentProviderLocal.js"
import { PaymentProviderStripe } from "./PaymentProviderStripe.js"

/**
 * The payment provider the configuration selects (decision 0444): Stripe when `STRIPE_SECRET_KEY`
 * is set, else the local provider (the default, offline).
 */
export const PaymentProviderLive: Layer.Layer<PaymentProvider, never, BillingConfig | SqlClient.SqlClient> = Layer.unwrapEffect(
  Effect.map(BillingConfig, (settings): Layer.Layer<PaymentProvider, never, BillingConfig | SqlClient.SqlClient> =>
    Option.isSome(settings.stripeSecretKey) ? PaymentProviderStripe : PaymentProviderLocal)
)
