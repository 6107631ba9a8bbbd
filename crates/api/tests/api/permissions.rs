//! The permission matrix: every route of the OpenAPI document × every kind of caller →
//! what the caller gets (pretix's permission table, run on both backends).
//!
//! A cell says whether the caller gets past authentication and authorisation:
//! - `ok`: anything but 401 and 403 (the route runs; with the placeholder ids and empty
//!   bodies below that is usually a 400 or a 404);
//! - `401`: 401 `UNAUTHORIZED` (no token where one is needed);
//! - `403`: 403 `INSUFFICIENT_PERMISSIONS` (wrong role or wrong kind of token);
//! - `mis`: 403 `TENANT_MISMATCH` (a token of another tenant).
//!
//! Adding a route without a row here fails `every_route_has_a_row`.

use kairos_api::rate_limit::Limits;
use kairos_domain::auth::Role;
use kairos_testkit::TestApp;
use serde_json::json;
use std::collections::BTreeSet;

/// Columns of [`MATRIX`], in order.
const CALLERS: [&str; 7] = [
    "owner",
    "manager",
    "front_desk",
    "viewer",
    "customer",
    "no token",
    "other tenant",
];

/// method, path (placeholders `{…}` are filled with a fresh UUID), expected cell per caller.
#[rustfmt::skip]
const MATRIX: &[(&str, &str, &str)] = &[
    //                                                                 own  man  fd   view cust none other
    ("POST", "/api/auth/login", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/admin/users", "ok 403 403 403 403 401 mis"),
    ("POST", "/api/v1/admin/users", "ok 403 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/users/{id}", "ok 403 403 403 403 401 mis"),
    ("PATCH", "/api/v1/admin/users/{id}", "ok 403 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/users/{id}", "ok 403 403 403 403 401 mis"),
    ("POST", "/api/v1/customers/register", "ok ok ok ok ok ok ok"),
    ("POST", "/api/v1/customers/login", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/customers/me", "403 403 403 403 ok 401 403"),
    ("PATCH", "/api/v1/customers/me", "403 403 403 403 ok 401 403"),
    ("GET", "/api/v1/customers/me/bookings", "403 403 403 403 ok 401 403"),
    // catalog: admin:read / admin:write
    ("GET", "/api/v1/admin/sites", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/sites", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/sites/{id}", "ok ok ok ok 403 401 mis"),
    ("PATCH", "/api/v1/admin/sites/{id}", "ok ok 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/sites/{id}", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/products", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/products", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/products/{id}", "ok ok ok ok 403 401 mis"),
    ("PATCH", "/api/v1/admin/products/{id}", "ok ok 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/products/{id}", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/packages", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/admin/packages", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/packages", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/packages/{id}", "ok ok ok ok 403 401 mis"),
    ("PATCH", "/api/v1/admin/packages/{id}", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/products/{id}/variants", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/products/{id}/variants", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/products/{id}/variants/{variantId}", "ok ok ok ok 403 401 mis"),
    ("PATCH", "/api/v1/admin/products/{id}/variants/{variantId}", "ok ok 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/products/{id}/variants/{variantId}", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/products/{id}/addons", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/products/{id}/addons", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/products/{id}/addons/{addonId}", "ok ok ok ok 403 401 mis"),
    ("PATCH", "/api/v1/admin/products/{id}/addons/{addonId}", "ok ok 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/products/{id}/addons/{addonId}", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/resources", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/resources", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/resources/{id}", "ok ok ok ok 403 401 mis"),
    ("PATCH", "/api/v1/admin/resources/{id}", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/products/{id}/resource-addons", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/products/{id}/resource-addons", "ok ok 403 403 403 401 mis"),
    ("PATCH", "/api/v1/admin/products/{id}/resource-addons/{configId}", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/products/{id}/resources", "ok ok ok ok 403 401 mis"),
    ("GET", "/api/v1/admin/resources/{id}/blackouts", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/resources/{id}/blackouts", "ok ok 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/resources/{id}/blackouts/{blackoutId}", "ok ok 403 403 403 401 mis"),
    ("PUT", "/api/v1/admin/products/{id}/resources", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/resource-groups", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/resource-groups", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/resource-groups/{id}", "ok ok ok ok 403 401 mis"),
    ("PATCH", "/api/v1/admin/resource-groups/{id}", "ok ok 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/resource-groups/{id}", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/resource-groups/{id}/resources", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/resource-groups/assign", "ok ok 403 403 403 401 mis"),
    ("POST", "/api/v1/admin/resource-groups/assign/bulk", "ok ok 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/resource-groups/unassign/{resourceId}", "ok ok 403 403 403 401 mis"),
    ("PATCH", "/api/v1/admin/resource-groups/{id}/policies", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/resource-groups/resources/{resourceId}/effective-policies", "ok ok ok ok 403 401 mis"),
    ("GET", "/api/v1/admin/skills", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/skills", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/skills/{id}", "ok ok ok ok 403 401 mis"),
    ("PATCH", "/api/v1/admin/skills/{id}", "ok ok 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/skills/{id}", "ok ok 403 403 403 401 mis"),
    ("POST", "/api/v1/admin/skills/assign", "ok ok 403 403 403 401 mis"),
    ("POST", "/api/v1/admin/skills/assign/bulk", "ok ok 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/skills/resources/{resourceId}/skills/{skillId}", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/skills/resources/{resourceId}", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/skills/products/{productId}/requirements", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/skills/products/{productId}/requirements", "ok ok ok ok 403 401 mis"),
    ("GET", "/api/v1/admin/skills/expiring", "ok ok ok ok 403 401 mis"),
    ("GET", "/api/v1/admin/skills/availability", "ok ok ok ok 403 401 mis"),
    // schedules: admin:read / admin:write
    ("GET", "/api/v1/admin/schedules/templates", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/schedules/templates", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/schedules/templates/{id}", "ok ok ok ok 403 401 mis"),
    ("PATCH", "/api/v1/admin/schedules/templates/{id}", "ok ok 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/schedules/templates/{id}", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/schedules/overrides", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/schedules/overrides", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/schedules/overrides/{id}", "ok ok ok ok 403 401 mis"),
    ("PATCH", "/api/v1/admin/schedules/overrides/{id}", "ok ok 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/schedules/overrides/{id}", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/schedules/blackouts", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/schedules/blackouts", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/schedules/blackouts/{id}", "ok ok ok ok 403 401 mis"),
    ("PATCH", "/api/v1/admin/schedules/blackouts/{id}", "ok ok 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/schedules/blackouts/{id}", "ok ok 403 403 403 401 mis"),
    ("POST", "/api/v1/admin/schedules/regenerate", "ok ok 403 403 403 401 mis"),
    ("POST", "/api/v1/admin/schedules/regenerate/preview", "ok ok 403 403 403 401 mis"),
    // public reads
    ("GET", "/api/v1/availability", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/availability/products/{productId}/addons", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/availability/resource-addons", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/availability/resource-addons/{configId}/windows", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/availability/sites/{siteId}/config", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/availability/sites", "ok ok ok ok ok ok ok"),
    // the public booking flow: token holders and customers need no permission; staff
    // need admin:bookings:read (read) or admin:bookings:write (act)
    ("POST", "/api/v1/bookings/hold", "ok ok ok ok ok ok mis"),
    ("GET", "/api/v1/bookings/{id}", "ok ok ok ok ok ok mis"),
    // booking groups: public with the tenant header (staff need manage_bookings), admin manage_bookings
    ("POST", "/api/v1/booking-groups/hold", "ok ok ok 403 ok ok mis"),
    ("GET", "/api/v1/booking-groups/{id}", "ok ok ok 403 ok ok mis"),
    ("POST", "/api/v1/booking-groups/{id}/confirm", "ok ok ok 403 ok ok mis"),
    ("POST", "/api/v1/booking-groups/{id}/apply-promo", "ok ok ok 403 ok ok mis"),
    ("DELETE", "/api/v1/booking-groups/{id}/promotions/{code}", "ok ok ok 403 ok ok mis"),
    ("POST", "/api/v1/booking-groups/{id}/apply-voucher", "ok ok ok 403 ok ok mis"),
    ("GET", "/api/v1/admin/booking-groups", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/admin/booking-groups", "ok ok ok 403 403 401 mis"),
    ("GET", "/api/v1/admin/booking-groups/{id}", "ok ok ok 403 403 401 mis"),
    ("PATCH", "/api/v1/admin/booking-groups/{id}", "ok ok ok 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/booking-groups/{id}", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/admin/booking-groups/{id}/bookings", "ok ok ok 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/booking-groups/{id}/bookings/{bookingId}", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/admin/booking-groups/{id}/hold", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/admin/booking-groups/{id}/calculate-pricing", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/admin/booking-groups/{id}/cancel", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/admin/booking-groups/{id}/confirm", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/admin/booking-groups/{id}/mark-paid", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/bookings/{id}/confirm", "ok ok ok 403 ok ok mis"),
    ("POST", "/api/v1/bookings/{id}/cancel", "ok ok ok 403 ok ok mis"),
    ("POST", "/api/v1/bookings/{id}/reschedule", "ok ok ok 403 ok ok mis"),
    // staff actions: admin:bookings:write
    ("POST", "/api/v1/bookings/{id}/mark-arrived", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/bookings/{id}/mark-paid", "ok ok ok 403 403 401 mis"),
    ("PATCH", "/api/v1/bookings/{id}/mark-no-show", "ok ok ok 403 403 401 mis"),
    // booking administration
    // promotions: public listings, then administration with admin:write (spec Part A 4.8)
    ("GET", "/api/v1/promotions", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/promotions/active", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/admin/promotions", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/promotions/export", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/promotions", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/promotions/{id}", "ok ok 403 403 403 401 mis"),
    ("PATCH", "/api/v1/admin/promotions/{id}", "ok ok 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/promotions/{id}", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/promotions/{id}/stats", "ok ok 403 403 403 401 mis"),
    ("POST", "/api/v1/admin/promotions/import/preview", "ok ok 403 403 403 401 mis"),
    ("POST", "/api/v1/admin/promotions/import", "ok ok 403 403 403 401 mis"),
    ("POST", "/api/v1/admin/vouchers/import/preview", "ok ok 403 403 403 401 mis"),
    ("POST", "/api/v1/admin/vouchers/import", "ok ok 403 403 403 401 mis"),
    // codes on holds: whoever may confirm the hold
    ("POST", "/api/v1/promotions/validate", "ok ok ok ok ok ok ok"),
    ("POST", "/api/v1/promotions/apply", "ok ok ok 403 ok ok mis"),
    ("POST", "/api/v1/bookings/{id}/apply-promo", "ok ok ok 403 ok ok mis"),
    ("DELETE", "/api/v1/bookings/{id}/promotions/{code}", "ok ok ok 403 ok ok mis"),
    ("POST", "/api/v1/bookings/{id}/apply-voucher", "ok ok ok 403 ok ok mis"),
    ("POST", "/api/v1/bookings/{id}/resource-addons", "ok ok ok 403 ok ok mis"),
    ("GET", "/api/v1/bookings/{id}/resource-addons", "ok ok ok ok ok ok mis"),
    ("PATCH", "/api/v1/bookings/{id}/resource-addons", "ok ok ok 403 ok ok mis"),
    ("POST", "/api/v1/bookings/{id}/resource-addons/resolve-conflict", "ok ok ok 403 ok ok mis"),
    ("POST", "/api/v1/promotions/vouchers/redeem", "ok ok ok 403 ok ok mis"),
    // vouchers: administration with admin:write, the public balance
    ("GET", "/api/v1/admin/vouchers", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/vouchers/export", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/vouchers", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/vouchers/{id}", "ok ok 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/vouchers/{id}", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/vouchers/{code}/balance", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/admin/bookings", "ok ok ok ok 403 401 mis"),
    ("GET", "/api/v1/admin/day-sheet", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/bookings", "ok ok ok 403 403 401 mis"),
    ("GET", "/api/v1/admin/bookings/{id}", "ok ok ok ok 403 401 mis"),
    ("PATCH", "/api/v1/admin/bookings/{id}/status", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/admin/bookings/{bookingId}/cancel", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/admin/bookings/{bookingId}/cancel/preview", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/admin/calendar/precheck-move", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/admin/calendar/commit-move", "ok ok ok 403 403 401 mis"),
    // no-shows and fees: run by the desk (admin:bookings:write), read with
    // admin:bookings:read; the fee policy set by owners; blocks read with customers
    ("POST", "/api/v1/admin/bookings/{bookingId}/no-show", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/admin/bookings/{bookingId}/apply-fee", "ok ok ok 403 403 401 mis"),
    ("GET", "/api/v1/admin/bookings/{bookingId}/fees", "ok ok ok ok 403 401 mis"),
    ("GET", "/api/v1/admin/no-show/booking/{bookingId}", "ok ok ok ok 403 401 mis"),
    ("GET", "/api/v1/admin/no-show/pending", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/no-show/booking/{bookingId}/resolve", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/admin/no-show/booking/{bookingId}/process-fee", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/admin/no-shows/process-fee", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/admin/fees/{feeId}/charge", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/admin/fees/{feeId}/waive", "ok ok ok 403 403 401 mis"),
    ("GET", "/api/v1/admin/no-show/policy", "ok ok ok ok 403 401 mis"),
    ("PUT", "/api/v1/admin/no-show/policy", "ok 403 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/customer-blocks", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/customer-blocks/{blockId}/lift", "ok ok ok 403 403 401 mis"),
    // issues: logged and updated by the desk, read with admin:bookings:read
    ("POST", "/api/v1/admin/issues", "ok ok ok 403 403 401 mis"),
    ("GET", "/api/v1/admin/issues", "ok ok ok ok 403 401 mis"),
    ("GET", "/api/v1/admin/issues/{issueId}", "ok ok ok ok 403 401 mis"),
    ("PATCH", "/api/v1/admin/issues/{issueId}", "ok ok ok 403 403 401 mis"),
    // participants: the booking's token, its customer, or staff (read / write bookings)
    ("GET", "/api/v1/bookings/{bookingId}/participants", "ok ok ok ok ok ok mis"),
    ("POST", "/api/v1/bookings/{bookingId}/participants", "ok ok ok 403 ok ok mis"),
    ("PATCH", "/api/v1/bookings/{bookingId}/participants/{participantId}", "ok ok ok 403 ok ok mis"),
    ("DELETE", "/api/v1/bookings/{bookingId}/participants/{participantId}", "ok ok ok 403 ok ok mis"),
    // waivers: signing is public; templates are configuration; signatures are bookings'
    ("GET", "/api/v1/waivers/active", "ok ok ok ok ok ok ok"),
    ("POST", "/api/v1/waivers/sign", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/waivers/booking/{bookingId}/status", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/waivers/booking/{bookingId}/participants/status", "ok ok ok ok ok ok ok"),
    ("POST", "/api/v1/waivers/booking/{bookingId}/participants/{participantId}/sign", "ok ok ok ok ok ok ok"),
    ("POST", "/api/v1/waivers/booking/{bookingId}/participants", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/waivers/templates", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/waivers/templates", "ok ok 403 403 403 401 mis"),
    ("PATCH", "/api/v1/waivers/templates/{templateId}/deactivate", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/waivers/signatures", "ok ok ok ok 403 401 mis"),
    ("GET", "/api/v1/admin/waivers/booking/{bookingId}", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/waivers/manual", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/admin/waivers/{waiverRequestId}/remind", "ok ok ok 403 403 401 mis"),
    ("GET", "/api/v1/admin/waivers/signatures/{signatureId}/document", "ok ok ok ok 403 401 mis"),
    ("GET", "/api/v1/admin/waivers/retention", "ok ok ok ok 403 401 mis"),
    ("PUT", "/api/v1/admin/waivers/retention", "ok ok 403 403 403 401 mis"),
    ("PATCH", "/api/v1/admin/bookings/{id}/customer", "ok ok ok 403 403 401 mis"),
    ("GET", "/api/v1/admin/bookings/{bookingId}/notes", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/bookings/{bookingId}/notes", "ok ok ok 403 403 401 mis"),
    ("PATCH", "/api/v1/admin/bookings/{bookingId}/notes/{noteId}", "ok ok ok 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/bookings/{bookingId}/notes/{noteId}", "ok ok ok 403 403 401 mis"),
    ("GET", "/api/v1/admin/customers/{identifier}/bookings", "ok ok ok ok 403 401 mis"),
    // messaging: templates read with admin:read, changed with admin:write
    ("GET", "/api/v1/admin/messaging/templates", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/messaging/templates", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/messaging/templates/types", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/messaging/templates/preview", "ok ok ok ok 403 401 mis"),
    ("GET", "/api/v1/admin/messaging/templates/key/{templateKey}", "ok ok ok ok 403 401 mis"),
    ("GET", "/api/v1/admin/messaging/templates/{id}", "ok ok ok ok 403 401 mis"),
    ("PUT", "/api/v1/admin/messaging/templates/{id}", "ok ok 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/messaging/templates/{id}", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/messaging/messages", "ok ok ok ok 403 401 mis"),
    ("GET", "/api/v1/admin/messaging/{messageId}/status", "ok ok ok ok 403 401 mis"),
    ("GET", "/api/v1/admin/messaging/automation-rules", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/messaging/automation-rules", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/messaging/automation-rules/{id}", "ok ok ok ok 403 401 mis"),
    ("PUT", "/api/v1/admin/messaging/automation-rules/{id}", "ok ok 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/messaging/automation-rules/{id}", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/customers/{customerId}/preferences", "ok ok ok ok 403 401 mis"),
    ("PATCH", "/api/v1/admin/customers/{customerId}/preferences", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/admin/messaging/send", "ok ok ok 403 403 401 mis"),
    // bulk sends: created and canceled with admin:write, read with admin:bookings:read
    ("POST", "/api/v1/admin/messaging/bulk", "ok ok 403 403 403 401 mis"),
    ("GET", "/api/v1/admin/messaging/bulk", "ok ok ok ok 403 401 mis"),
    ("GET", "/api/v1/admin/messaging/bulk/{bulkId}", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/messaging/bulk/{bulkId}/cancel", "ok ok 403 403 403 401 mis"),
    ("GET", "/track/{tenantId}/{messageId}/open.gif", "ok ok ok ok ok ok ok"),
    ("GET", "/track/{tenantId}/{messageId}/click", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/admin/messaging/analytics", "ok ok ok ok 403 401 mis"),
    // dead letters: read with admin:read, acted on with admin:write
    ("GET", "/api/v1/admin/dead-letters", "ok ok ok ok 403 401 mis"),
    ("GET", "/api/v1/admin/dead-letters/{id}", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/dead-letters/{id}/retry", "ok ok 403 403 403 401 mis"),
    ("POST", "/api/v1/admin/dead-letters/{id}/resolve", "ok ok 403 403 403 401 mis"),
    ("POST", "/api/v1/admin/dead-letters/{id}/skip", "ok ok 403 403 403 401 mis"),
    // gift cards: products read with admin:read, changed with admin:write; the catalogue
    // is public
    ("GET", "/api/v1/admin/gift-card-products", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/gift-card-products", "ok ok 403 403 403 401 mis"),
    ("PATCH", "/api/v1/admin/gift-card-products/{id}", "ok ok 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/gift-card-products/{id}", "ok ok 403 403 403 401 mis"),
    // gift card purchases: listed with admin:read, resent with admin:write; buying,
    // paying, status and balance are public
    ("GET", "/api/v1/admin/gift-card-purchases", "ok ok ok ok 403 401 mis"),
    ("POST", "/api/v1/admin/gift-card-purchases/{id}/resend", "ok ok 403 403 403 401 mis"),
    ("POST", "/api/v1/gift-cards/purchase", "ok ok ok ok ok ok ok"),
    ("POST", "/api/v1/gift-cards/purchase/{id}/payment/cardpay", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/gift-cards/purchase/{id}/status", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/gift-cards/balance/{code}", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/gift-cards/products", "ok ok ok ok ok ok ok"),
    ("GET", "/api/v1/gift-cards/products/{id}", "ok ok ok ok ok ok ok"),
    // payments: credentials read with admin:read, changed by owners only
    ("GET", "/api/v1/admin/payments/credentials", "ok ok ok ok 403 401 mis"),
    ("PUT", "/api/v1/admin/payments/credentials/{provider}", "ok 403 403 403 403 401 mis"),
    ("DELETE", "/api/v1/admin/payments/credentials/{provider}", "ok 403 403 403 403 401 mis"),
    // payments: the cancellation fee read with admin:read, set by owners only
    ("GET", "/api/v1/admin/payments/refund-policy", "ok ok ok ok 403 401 mis"),
    ("PUT", "/api/v1/admin/payments/refund-policy", "ok 403 403 403 403 401 mis"),
    // payments: authorize by the booking's caller; capture and refund by staff
    ("POST", "/api/v1/payments/authorize", "ok ok ok 403 ok ok mis"),
    ("POST", "/api/v1/payments/capture", "ok ok ok 403 403 401 mis"),
    ("POST", "/api/v1/payments/refund", "ok ok ok 403 403 401 mis"),
    // provider webhooks: the signature is the authentication, whoever calls
    ("POST", "/payments/cardpay/webhook", "ok ok ok ok ok ok ok"),
    // the bank callback's only authentication is its signature: unsigned, everyone's 403
    ("POST", "/webhooks/bankpay/callback", "403 403 403 403 403 403 403"),
    ("GET", "/webhooks/bankpay/callback", "403 403 403 403 403 403 403"),
    // webhook health: anyone gets the status, staff their tenant's counts; a token that
    // is given is checked
    ("POST", "/webhooks/bankpay/health", "ok ok ok ok 403 ok mis"),
    ("POST", "/payments/cardpay/webhook/health", "ok ok ok ok 403 ok mis"),
    // operations
    ("GET", "/healthz", "ok ok ok ok ok ok ok"),
    ("GET", "/readyz", "ok ok ok ok ok ok ok"),
    ("GET", "/metrics", "ok ok ok ok ok ok ok"),
    ("GET", "/api/openapi.json", "ok ok ok ok ok ok ok"),
];

/// Fills every `{placeholder}` of a path with a fresh UUID.
fn concrete(path: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let end = rest[start..]
            .find('}')
            .unwrap_or_else(|| panic!("unclosed placeholder in {path}"));
        out.push_str(&uuid::Uuid::now_v7().to_string());
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn every_route_has_a_row() {
    let doc = kairos_api::openapi();
    let mut documented = BTreeSet::new();
    for (path, item) in &doc.paths.paths {
        for (method, op) in [
            ("GET", &item.get),
            ("POST", &item.post),
            ("PUT", &item.put),
            ("PATCH", &item.patch),
            ("DELETE", &item.delete),
        ] {
            if op.is_some() {
                documented.insert((method.to_owned(), path.clone()));
            }
        }
    }
    let listed: BTreeSet<(String, String)> = MATRIX
        .iter()
        .map(|(m, p, _)| ((*m).to_owned(), (*p).to_owned()))
        .collect();
    let missing: Vec<_> = documented.difference(&listed).collect();
    let stale: Vec<_> = listed.difference(&documented).collect();
    assert!(missing.is_empty(), "routes without a row: {missing:?}");
    assert!(stale.is_empty(), "rows naming no route: {stale:?}");
    assert_eq!(listed.len(), MATRIX.len(), "a route is listed twice");
}

#[tokio::test]
async fn every_route_answers_every_caller_as_the_matrix_says() {
    let app = TestApp::builder().limits(Limits::UNLIMITED).spawn().await;
    let t = app.tenant("matrix").await;
    let other = app.tenant("matrix-other").await;
    let mut tokens: Vec<Option<String>> = vec![Some(t.owner_token.clone())];
    for (name, role) in [
        ("manager", Role::Manager),
        ("frontdesk", Role::FrontDesk),
        ("viewer", Role::Viewer),
    ] {
        app.staff(&t.id, name, "staff-password-1", &[role]).await;
        tokens.push(Some(app.admin_token(&t.id, name, "staff-password-1").await));
    }
    tokens.push(Some(app.customer_token(&t.id, "matrix@example.com").await));
    tokens.push(None);
    tokens.push(Some(other.owner_token.clone()));

    let mut wrong = Vec::new();
    for (method, path, row) in MATRIX {
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells.len(), CALLERS.len(), "row of {method} {path}");
        for ((caller, token), expected) in CALLERS.iter().zip(&tokens).zip(&cells) {
            let url = concrete(path);
            let mut req = match *method {
                "GET" => app.get(&url),
                "POST" => app.post(&url),
                "PATCH" => app.patch(&url),
                "PUT" => app.put(&url),
                "DELETE" => app.delete(&url),
                other => panic!("method {other}"),
            }
            .tenant(&t.id);
            if let Some(token) = token {
                req = req.token(token);
            }
            if matches!(*method, "POST" | "PATCH" | "PUT") {
                req = req.json(json!({}));
            }
            let res = req.send().await;
            // Shape A names the code in `error`, shape B (notifications) in `errorCode`.
            let code = res.body["errorCode"]
                .as_str()
                .or(res.body["error"].as_str());
            let got = match (res.status.as_u16(), code) {
                (401, _) => "401",
                (403, Some("TENANT_MISMATCH")) => "mis",
                (403, _) => "403",
                _ => "ok",
            };
            if got != *expected {
                wrong.push(format!(
                    "{method} {path} as {caller}: expected {expected}, got {} {}",
                    res.status, res.body
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Confirming with comp or invoice collects nothing now: staff need
/// `admin:bookings:create:comp` (owners and managers), whatever else their role allows;
/// a booking-token holder may not at all.
#[tokio::test]
async fn staff_payment_methods_need_their_permission() {
    let app = TestApp::spawn().await;
    let t = app.tenant("payments").await;
    let fx = app.bookable(&t).await;
    let mut tokens = vec![("owner", t.owner_token.clone())];
    for (name, role) in [("manager", Role::Manager), ("frontdesk", Role::FrontDesk)] {
        app.staff(&t.id, name, "staff-password-1", &[role]).await;
        tokens.push((name, app.admin_token(&t.id, name, "staff-password-1").await));
    }
    let mut slot = 0;
    for method in ["comp", "invoice"] {
        for (who, token) in &tokens {
            let hold = app
                .hold(&t.id, &fx, &fx.slots[slot % fx.slots.len()], 1)
                .await;
            slot += 1;
            let path = format!("/api/v1/bookings/{}/confirm", hold.str("id"));
            let body = json!({"pricingHash": hold.str("pricingHash"), "paymentMethod": method});
            let res = app
                .post(&path)
                .tenant(&t.id)
                .token(token)
                .json(body.clone())
                .send()
                .await;
            if *who == "frontdesk" {
                res.assert_error(403, "INSUFFICIENT_PERMISSIONS");
                assert_eq!(
                    res.body["details"]["requiredPermission"],
                    "admin:bookings:create:comp"
                );
                // Nothing changed: the booking is still a hold its token can confirm.
                let token = hold.str("bookingToken");
                let mine = app
                    .post(&path)
                    .tenant(&t.id)
                    .header("x-booking-token", token)
                    .json(json!({"pricingHash": hold.str("pricingHash"), "paymentMethod": "poa"}))
                    .send()
                    .await;
                mine.assert_status(200);
                assert_eq!(mine.body["status"], "tentative");
            } else {
                res.assert_status(200);
                assert_eq!(res.body["status"], "confirmed", "{method} as {who}");
            }
        }
        // A booking-token holder is no staff member.
        let hold = app
            .hold(&t.id, &fx, &fx.slots[slot % fx.slots.len()], 1)
            .await;
        slot += 1;
        app.post(&format!("/api/v1/bookings/{}/confirm", hold.str("id")))
            .tenant(&t.id)
            .header("x-booking-token", hold.str("bookingToken"))
            .json(json!({"pricingHash": hold.str("pricingHash"), "paymentMethod": method}))
            .send()
            .await
            .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    }
}
