import { EventsRepo, OutboxLive } from "@core/events"
import { Ids } from "@core/kernel"
import { Layer } from "effect"

/**
 * The events service's outbox, which each domain's changes record their events in (in their own
 * transactions): given to every service whose changes are told (identity, registry, provisioning
 * and its jobs, the command-line backend, billing).
 */
export const EventOutboxLive = OutboxLive.pipe(Layer.provide(EventsRepo.Default), Layer.provideMerge(Ids.layer))
