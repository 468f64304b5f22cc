import { Iam } from "@core/contracts"
import { type CoreError, Conflict, ErrorResponse, Forbidden, NotFound, ValidationError } from "@core/kernel"
import { type Context, Data, Effect } from "effect"
import type { Caller } from "@core/kernel"
import type { Access } from "../authorization/Access.js"

type OrganizationErrorCode = Iam.OrganizationErrorCode

/** How an organization rule reads on the documented `/api/core/*` routes. */
type CoreKind = "Conflict" | "NotFound" | "Forbidden" | "BadRequest"

/**
 * Each organization rule and the kernel error it becomes on the documented routes (the status
 * better-auth answers it with on `/api/auth/organization/*` is the renderer's: `BetterAuth.statusOf`).
 */
const RULES: Record<OrganizationErrorCode, { readonly core: CoreKind }> = {
  ORGANIZATION_ALREADY_EXISTS: { core: "Conflict" },
  ORGANIZATION_SLUG_ALREADY_TAKEN: { core: "Conflict" },
  ORGANIZATION_NOT_FOUND: { core: "NotFound" },
  NO_ACTIVE_ORGANIZATION: { core: "BadRequest" },
  USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION: { core: "Conflict" },
  MEMBER_NOT_FOUND: { core: "NotFound" },
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION: { core: "Forbidden" },
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION: { core: "Forbidden" },
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER: { core: "Conflict" },
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER: { core: "Conflict" },
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER: { core: "Forbidden" },
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER: { core: "Forbidden" },
  YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION: { core: "Forbidden" },
  YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE: { core: "Forbidden" },
  USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION: { core: "Conflict" },
  INVITATION_NOT_FOUND: { core: "NotFound" },
  YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION: { core: "Forbidden" },
  YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION: { core: "Forbidden" },
  YOU_ARE_NOT_ALLOWED_TO_LIST_INVITATIONS: { core: "Forbidden" },
  YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION: { core: "NotFound" },
  YOU_ARE_NOT_ALLOWED_TO_READ_THIS_ORGANIZATION: { core: "Forbidden" },
  INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION: { core: "Conflict" }
}

/** An organization rule refused the request; `code` is better-auth's name for it. */
export class OrganizationError extends Data.TaggedError("OrganizationError")<{
  readonly code: OrganizationErrorCode
  readonly message: string
}> {
  /** The error for `code`, with its catalogue message. */
  static of(code: OrganizationErrorCode): OrganizationError {
    return new OrganizationError({ code, message: Iam.OrganizationErrorCodes[code] })
  }

  /** The same rule as a kernel error, for the documented routes and their envelope. */
  toCore(): CoreError {
    switch (RULES[this.code].core) {
      case "Conflict":
        return new Conflict({ message: this.message, details: { reason: this.code } })
      case "NotFound":
        return new NotFound({ message: this.message })
      case "Forbidden":
        return new Forbidden({ message: this.message })
      case "BadRequest":
        return new ValidationError({ message: this.message, issues: [{ path: "organizationId", message: this.message }] })
    }
  }
}

/** Fail with the organization rule `code`. */
export const fail = (code: OrganizationErrorCode): Effect.Effect<never, OrganizationError> =>
  Effect.fail(OrganizationError.of(code))

/**
 * `Access.requirePermission` in organization terms: a non-member (another tenant) reads
 * `ORGANIZATION_NOT_FOUND` (or `notFound`), a member lacking the permission `forbidden`.
 */
export const requireIn = (
  access: Context.Tag.Service<Access>,
  caller: Caller,
  organizationId: string,
  permission: string,
  forbidden: OrganizationErrorCode,
  notFound: OrganizationErrorCode = "ORGANIZATION_NOT_FOUND"
): Effect.Effect<void, OrganizationError> =>
  access.requirePermission(caller, organizationId, permission).pipe(
    Effect.mapError((error) => OrganizationError.of(error._tag === "NotFound" ? notFound : forbidden))
  )

/**
 * The kernel's envelope for the documented `/api/core/*` organization routes: the services share
 * their rules with the better-auth routes, so an `OrganizationError` is answered as the kernel error
 * it stands for (`toCore`), anything else through the kernel's table.
 */
export const envelopeRenderer: ErrorResponse.Renderer = {
  recognize: (failure) => {
    if (!(failure instanceof OrganizationError)) return undefined
    const error = failure.toCore()
    return { ...ErrorResponse.describe(error), kind: "failure", error }
  },
  render: ErrorResponse.envelopeRenderer.render
}
