import { NotFound, NotImplemented } from "@core/kernel"

/** A platform, subscription, invoice or customer the caller may not see answers as if it did not exist. */
export const platformNotFound = new NotFound({ message: "Platform not found" })
export const subscriptionNotFound = new NotFound({ message: "Subscription not found" })
export const invoiceNotFound = new NotFound({ message: "Invoice not found" })
export const customerNotFound = new NotFound({ message: "Customer not found" })
export const paymentMethodNotFound = new NotFound({ message: "Payment method not found" })

/** The reserved `POST /subscription` (seed 001): 501. */
export const subscriptionCreationReserved = new NotImplemented({
  message: "Creating a subscription this way is reserved for future use; every platform already has one"
})
