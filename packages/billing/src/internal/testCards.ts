/** How a card behaves when charged (Stripe's test cards, decision 0433). */
export type CardBehaviour = "succeeds" | "card_declined" | "insufficient_funds"

/** A test card: brand, last four digits, behaviour. */
export interface TestCard {
  readonly brand: string
  readonly last4: string
  readonly behaviour: CardBehaviour
}

const visa: TestCard = { brand: "visa", last4: "4242", behaviour: "succeeds" }
const declined: TestCard = { brand: "visa", last4: "0002", behaviour: "card_declined" }
const insufficient: TestCard = { brand: "visa", last4: "9995", behaviour: "insufficient_funds" }
const mastercard: TestCard = { brand: "mastercard", last4: "4444", behaviour: "succeeds" }

/** Stripe's test payment-method ids and card numbers, and what each does. */
const CARDS: Readonly<Record<string, TestCard>> = {
  pm_card_visa: visa,
  "4242424242424242": visa,
  pm_card_mastercard: mastercard,
  "5555555555554444": mastercard,
  pm_card_chargeDeclined: declined,
  "4000000000000002": declined,
  pm_card_chargeDeclinedInsufficientFunds: insufficient,
  "4000000000009995": insufficient
}

/** The test card a reference names (a `pm_card_…` id or a card number, spaces and dashes ignored). */
export const testCardOf = (reference: string): TestCard | undefined => CARDS[reference.replace(/[\s-]/g, "")]

/** What a declined charge answers, by behaviour. */
export const DECLINE_MESSAGES: Readonly<Record<Exclude<CardBehaviour, "succeeds">, string>> = {
  card_declined: "Your card was declined.",
  insufficient_funds: "Your card has insufficient funds."
}

/** Stripe's test payment-method id for a test card number (or the id itself): what Stripe accepts for it. */
export const testPaymentMethodOf = (reference: string): string | undefined => {
  const card = testCardOf(reference)
  if (card === undefined) return undefined
  return Object.keys(CARDS).find((key) => key.startsWith("pm_card_") && CARDS[key] === card)
}
