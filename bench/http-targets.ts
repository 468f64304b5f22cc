import { HttpRouter, HttpServerResponse } from "@effect/platform"
import * as CoreNode from "@core/http/node"
import * as Web from "@core/http/web"
import { Effect, Layer } from "effect"
import * as http from "node:http"
import { listening, platformNode, references, startNamed } from "./Targets.js"

/** The trivial route every target serves: `GET /` → a small JSON body. */
const app = HttpRouter.empty.pipe(HttpRouter.get("/", Effect.succeed(HttpServerResponse.unsafeJson({ hello: "world" }))))

/** Start one target on 127.0.0.1 and resolve its port. */
export const targets: Record<string, () => Promise<number>> = {
  "core-node": async () => (await CoreNode.serve(app, { host: "127.0.0.1" })).port,
  "platform-node": () => platformNode(app, Layer.empty),
  "web-on-node": () => listening(http.createServer(CoreNode.toNodeListener(Web.make(app).handler))),
  ...references("/", { hello: "world" })
}

await startNamed(targets)
