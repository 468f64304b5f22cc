import type { MailMessage } from "./Mailer.js"

const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

const message = (to: string, subject: string, lead: string, action: string, link: string, note: string): MailMessage => ({
  to,
  subject,
  link,
  text: `${lead}\n\n${action}: ${link}\n\n${note}\n`,
  html: `<p>${escapeHtml(lead)}</p><p><a href="${escapeHtml(link)}">${escapeHtml(action)}</a></p>` +
    `<p>${escapeHtml(note)}</p>`
})

/** The magic-link mail (the link lives 10 minutes and works once). */
export const magicLink = (to: string, link: string): MailMessage =>
  message(
    to,
    "Your sign-in link",
    "Use this link to sign in to Core.",
    "Sign in",
    link,
    "The link works once and expires in 10 minutes. If you did not ask for it, ignore this mail."
  )

/** The password reset mail (the link lives one hour and works once). */
export const passwordReset = (to: string, link: string): MailMessage =>
  message(
    to,
    "Reset your password",
    "Someone asked to reset the password of your Core account.",
    "Choose a new password",
    link,
    "The link works once and expires in one hour. If you did not ask for it, ignore this mail."
  )

/** The email verification mail. */
export const emailVerification = (to: string, link: string): MailMessage =>
  message(
    to,
    "Verify your email address",
    "Confirm that this address belongs to your Core account.",
    "Verify email",
    link,
    "The link works once and expires in one hour."
  )
