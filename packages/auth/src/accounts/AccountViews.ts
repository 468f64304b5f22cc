import type { Iam } from "@core/contracts"
import type { SessionRecord } from "./SessionsRepo.js"
import type { UserRecord } from "./UsersRepo.js"

/** A user as better-auth answers it. */
export const userView = (user: UserRecord): Iam.User => ({
  id: user.id,
  name: user.name,
  email: user.email,
  emailVerified: user.emailVerified,
  image: user.image,
  createdAt: user.createdAt.toISOString(),
  updatedAt: user.updatedAt.toISOString()
})

/** A session as its owner sees it: never its token. */
export const sessionView = (session: SessionRecord): Iam.Session => ({
  id: session.id,
  userId: session.userId,
  expiresAt: session.expiresAt.toISOString(),
  createdAt: session.createdAt.toISOString(),
  updatedAt: session.updatedAt.toISOString(),
  ipAddress: session.ipAddress,
  userAgent: session.userAgent,
  activeOrganizationId: session.activeOrganizationId
})
