//! Provider secrets at rest: sealed with the service's key in the context of their
//! tenant, provider, scope and field.

use kairos_domain::TenantId;
use kairos_domain::payments::credentials::Provider;
use uuid::Uuid;

/// The context a secret is sealed in: its tenant, provider, scope and field, so a sealed
/// value copied elsewhere does not open.
pub fn seal_context(
    tenant: &TenantId,
    provider: Provider,
    site: Option<Uuid>,
    field: &str,
) -> String {
    let scope = site.map(|s| s.to_string()).unwrap_or_default();
    format!("{tenant}/{provider}/{scope}/{field}")
}
