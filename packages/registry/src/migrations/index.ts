import type { Migrations } from "@core/kernel"
import platforms from "./0001_platforms.js"
import platformLifecycle from "./0002_platform_lifecycle.js"
import entities from "./0003_entities.js"
import resources from "./0004_resources.js"
import dnsRecords from "./0005_dns_records.js"
import secrets from "./0006_secrets.js"
import featureActivations from "./0007_feature_activations.js"
import entityVersion from "./0008_entity_version.js"
import onboarding from "./0009_onboarding.js"

/** The registry's migrations (schema `registry`). */
export const RegistryMigrations: Migrations.Domain = {
  schema: "registry",
  migrations: {
    "0001_platforms": platforms,
    "0002_platform_lifecycle": platformLifecycle,
    "0003_entities": entities,
    "0004_resources": resources,
    "0005_dns_records": dnsRecords,
    "0006_secrets": secrets,
    "0007_feature_activations": featureActivations,
    "0008_entity_version": entityVersion,
    "0009_onboarding": onboarding
  }
}
