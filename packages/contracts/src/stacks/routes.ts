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
 * The stack catalogue (seed 002, "Stack registry") under `/api/v1/stacks` (the gateway strips that
 * prefix; the service serves both). Platform-wide: every authenticated caller reads it, operators
 * and the static key write it (decision 0220).
 */
export const StackRoutes = defineRoutes({
  listStacks: {
    method: "GET",
    path: "/api/v1/stacks",
    summary: "List the active stack templates",
    auth: "caller",
    responses: { 200: StackTemplateList, 401: null },
    tags
  },
  createStack: {
    method: "POST",
    path: "/api/v1/stacks",
    summary: "Create a stack template (operators and the static key)",
    auth: "operator",
    request: { body: CreateStackTemplateRequest },
    responses: { 201: StackCreated, 400: null, 401: null, 403: null, 409: null },
    tags
  },
  getStack: {
    method: "GET",
    path: "/api/v1/stacks/{name}",
    summary: "Read a stack template and its latest published version",
    auth: "caller",
    request: { params: StackParams },
    responses: { 200: StackTemplateDetail, 400: null, 401: null, 404: null },
    tags
  },
  updateStack: {
    method: "PATCH",
    path: "/api/v1/stacks/{name}",
    summary: "Update a stack template, or move it between active and deprecated (operators and the static key)",
    auth: "operator",
    request: { params: StackParams, body: UpdateStackTemplateRequest },
    responses: { 200: StackOk, 400: null, 401: null, 403: null, 404: null },
    tags
  },
  listStackVersions: {
    method: "GET",
    path: "/api/v1/stacks/{name}/versions",
    summary: "List the versions of a stack template, highest semantic version first",
    auth: "caller",
    request: { params: StackParams },
    responses: { 200: StackVersionList, 400: null, 401: null, 404: null },
    tags
  },
  createStackVersion: {
    method: "POST",
    path: "/api/v1/stacks/{name}/versions",
    summary: "Publish a version of a stack template (operators and the static key)",
    auth: "operator",
    request: { params: StackParams, body: CreateStackVersionRequest },
    responses: { 201: StackCreated, 400: null, 401: null, 403: null, 404: null, 409: null },
    tags
  },
  getStackVersion: {
    method: "GET",
    path: "/api/v1/stacks/{name}/{version}",
    summary: "Read one version of a stack template",
    auth: "caller",
    request: { params: StackVersionParams },
    responses: { 200: StackVersionRecord, 400: null, 401: null, 404: null },
    tags
  },
  deprecateStackVersion: {
    method: "DELETE",
    path: "/api/v1/stacks/{name}/{version}",
    summary: "Deprecate a version of a stack template (operators and the static key)",
    auth: "operator",
    request: { params: StackVersionParams },
    responses: { 200: StackOk, 400: null, 401: null, 403: null, 404: null },
    tags
  }
})
