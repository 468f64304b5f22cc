import { defineRoutes } from "../Routes.js"
import {
  CreateStackTemplateRequest,
  CreateStackVersionRequest,
  StackCreated,
  StackOk,
  StackParams,
  StackTemplateDetail,
  StackTemplateList,
  StackVersionList,
  StackVersionParams,
  StackVersionRecord,
  UpdateStackTemplateRequest
} from "./schemas.js"

const tags = ["stacks"]

/**
 * The stack catalogue under `/api/v1/stacks` (the gateway strips that
 * prefix; the service serves both). Platform-wide: every authenticated caller reads it, operators
 * and the static key write it (decision 0220).
 */
export const StackRoutes = defineRoutes({
  listStacks: {
    method: "GET",
    path: "/api/v1/stacks",
    summary: "List the active stack templates",
    description: "The active stack templates (deprecated ones left out), each with the number of its latest published version: what a platform's stacks are activated from. Any authenticated caller.",
    auth: "caller",
    responses: { 200: StackTemplateList, 401: null },
    tags
  },
  createStack: {
    method: "POST",
    path: "/api/v1/stacks",
    summary: "Create a stack template (operators and the static key)",
    description: "Creates a stack template with a unique name (409 when taken), a display name, a description, an icon and a domain, with no version yet. For operators and the static service key.",
    auth: "operator",
    request: { body: CreateStackTemplateRequest },
    responses: { 201: StackCreated, 400: null, 401: null, 403: null, 409: null },
    tags
  },
  getStack: {
    method: "GET",
    path: "/api/v1/stacks/{name}",
    summary: "Read a stack template and its latest published version",
    description: "One stack template by name with its latest published version. 404 for an unknown name.",
    auth: "caller",
    request: { params: StackParams },
    responses: { 200: StackTemplateDetail, 400: null, 401: null, 404: null },
    tags
  },
  updateStack: {
    method: "PATCH",
    path: "/api/v1/stacks/{name}",
    summary: "Update a stack template, or move it between active and deprecated (operators and the static key)",
    description: "Changes a stack template's display name, description, icon or domain, or moves it between `active` and `deprecated` (deprecated templates leave the list). For operators and the static service key.",
    auth: "operator",
    request: { params: StackParams, body: UpdateStackTemplateRequest },
    responses: { 200: StackOk, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  listStackVersions: {
    method: "GET",
    path: "/api/v1/stacks/{name}/versions",
    summary: "List the versions of a stack template, highest semantic version first",
    description: "The published versions of a template, highest semantic version first, each with its status (`published` or `deprecated`). 404 for an unknown template.",
    auth: "caller",
    request: { params: StackParams },
    responses: { 200: StackVersionList, 400: null, 401: null, 404: null },
    tags
  },
  createStackVersion: {
    method: "POST",
    path: "/api/v1/stacks/{name}/versions",
    summary: "Publish a version of a stack template (operators and the static key)",
    description: "Publishes a version of a template: a semantic version (409 when it exists) and its definition, what an activation of the stack creates. Versions are immutable once published. For operators and the static service key.",
    auth: "operator",
    request: { params: StackParams, body: CreateStackVersionRequest },
    responses: { 201: StackCreated, 400: null, 401: null, 403: null, 404: null, 409: null },
    tags
  },
  getStackVersion: {
    method: "GET",
    path: "/api/v1/stacks/{name}/{version}",
    summary: "Read one version of a stack template",
    description: "One published version of a template with its full definition. 404 for an unknown template or version.",
    auth: "caller",
    request: { params: StackVersionParams },
    responses: { 200: StackVersionRecord, 400: null, 401: null, 404: null },
    tags
  },
  deprecateStackVersion: {
    method: "DELETE",
    path: "/api/v1/stacks/{name}/{version}",
    summary: "Deprecate a version of a stack template (operators and the static key)",
    description: "Deprecates a version: existing activations keep it, new ones cannot choose it. For operators and the static service key.",
    auth: "operator",
    request: { params: StackVersionParams },
    responses: { 200: StackOk, 400: null, 401: null, 403: null, 404: null },
    tags
  }
})
