import { NAME_MAX, TAG_MAX } from "./Plant.js"

const error = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } }
})

/**
 * The store's OpenAPI 3.0.1 description (API version 1.0.0): the bearer scheme, the seed's three
 * schemas (`Plant`, `NewPlant`, `Error`), `POST /plants` as the seed gives it and `GET /plants`
 * beside it. `serverUrl` is the seed's `{base_url}`: where the store is reached.
 */
export const document = (serverUrl: string) => ({
  openapi: "3.0.1",
  info: {
    title: "Plant store",
    version: "1.0.0",
    description: "A sample API on Core: bearer credentials are Core API keys or session tokens, checked by Core's identity service."
  },
  servers: [{ url: serverUrl }],
  security: [{ bearerAuth: [] }],
  paths: {
    "/plants": {
      post: {
        operationId: "addPlant",
        summary: "Add a plant to the store",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/NewPlant" } } }
        },
        responses: {
          "200": {
            description: "The plant, as kept",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Plant" } } }
          },
          "400": error("The body is not a NewPlant"),
          "401": error("No bearer credential, or one Core refuses"),
          "409": error("The caller already has a plant with this id"),
          "502": error("Core could not check the credentials")
        }
      },
      get: {
        operationId: "listPlants",
        summary: "List the caller's plants, by id",
        parameters: [
          { name: "limit", in: "query", required: false, schema: { type: "integer", format: "int32", minimum: 1, maximum: 100, default: 100 } },
          { name: "after", in: "query", required: false, schema: { type: "integer", format: "int64", minimum: 0 } }
        ],
        responses: {
          "200": {
            description: "The plants, ordered by id",
            content: { "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/NewPlant" } } } }
          },
          "400": error("A bad query"),
          "401": error("No bearer credential, or one Core refuses"),
          "502": error("Core could not check the credentials")
        }
      }
    }
  },
  components: {
    securitySchemes: {
      bearerAuth: { type: "http", scheme: "bearer", description: "A Core API key (core_…) or a Core session token" }
    },
    schemas: {
      Plant: {
        type: "object",
        required: ["name"],
        properties: {
          name: { type: "string", minLength: 1, maxLength: NAME_MAX },
          tag: { type: "string", minLength: 1, maxLength: TAG_MAX }
        }
      },
      NewPlant: {
        allOf: [
          { $ref: "#/components/schemas/Plant" },
          {
            type: "object",
            required: ["id"],
            properties: { id: { type: "integer", format: "int64", minimum: 0, maximum: Number.MAX_SAFE_INTEGER } }
          }
        ]
      },
      Error: {
        type: "object",
        required: ["error", "message"],
        properties: {
          error: { type: "integer", format: "int32" },
          message: { type: "string" }
        }
      }
    }
  }
})
