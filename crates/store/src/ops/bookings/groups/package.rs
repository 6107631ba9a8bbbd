//! A group's agreed price spread over its bookings: a package's price (groupType
//! PACKAGE) or staff's custom total, each booking's share in proportion to its own price by
//! the largest remainder (`domain::booking_groups::allocate`), so the shares sum exactly.
//! A booking's share is its agreed price (`bookings.agreed_price`): it replaces the
//! booking's catalog subtotal, tax included, and the group's promotions and vouchers apply
//! on top of it, as on any price.

use super::super::super::catalog::load_package;
use super::super::actions::current_price;
use super::super::load_for_update;
use super::super::reductions::{load_reductions, store_price};
use super::{GroupError, Write};
use crate::{Booking, GroupItem, Package, PriceBreakdown};
use kairos_domain::booking_groups::allocate;
use uuid::Uuid;

/// The package `id` (read in the write it decides); `active`: still offered (a new hold),
/// else as it is (a held group keeps its package).
pub(super) async fn package_of(
    w: &mut Write,
    id: Uuid,
    active: bool,
) -> Result<Package, GroupError> {
    load_package(&mut w.tx, &w.tenant, id)
        .await?
        .filter(|p| p.is_active || !active)
        .ok_or(GroupError::PackageNotFound)
}

/// Refuses a plan that is not the package's: each of its products once, nothing else.
pub(super) fn check_package(package: &Package, items: &[GroupItem]) -> Result<(), GroupError> {
    let mut planned: Vec<Uuid> = items.iter().map(|i| i.product_id).collect();
    let mut wanted = package.product_ids.clone();
    planned.sort();
    wanted.sort();
    if planned == wanted {
        return Ok(());
    }
    Err(GroupError::NotThePackage(format!(
        "'{}' is {} activities, one of each of its products: {}",
        package.name,
        wanted.len(),
        wanted
            .iter()
            .map(Uuid::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

/// The package's price for `party` people whose activities cost `catalog` (each
/// activity's own price, tax included), split over them: each one's agreed price.
pub(super) fn package_shares(package: &Package, party: i32, catalog: &[i64]) -> Vec<i64> {
    let total = package.price.total(party, catalog.iter().sum());
    allocate(total, catalog)
}

/// Sets a held booking's agreed price (its share of the group's) and re-prices it from
/// the catalog with its promotions and vouchers on top of that share; what its vouchers no
/// longer pay goes back to them. Returns the new price, written.
pub(super) async fn agree(
    w: &mut Write,
    booking: &mut Booking,
    share: i64,
) -> Result<PriceBreakdown, GroupError> {
    sqlx::query("UPDATE bookings SET agreed_price = $3 WHERE tenant_id = $1 AND id = $2")
        .bind(w.tenant.as_str())
        .bind(booking.id)
        .bind(share)
        .execute(&mut *w.tx)
        .await?;
    let reductions = load_reductions(&mut w.tx, &w.tenant, booking.id).await?;
    let price = current_price(w, booking, &reductions).await?;
    store_price(w, booking, price, &reductions).await?;
    Ok(booking.price.clone())
}

/// Prices the group's just-held bookings at the package's price: each one's share of it,
/// by its own catalog price, becomes its agreed price.
pub(super) async fn price_held_at_package(
    w: &mut Write,
    group: Uuid,
    package: &Package,
    party: i32,
) -> Result<(), GroupError> {
    let ids: Vec<Uuid> = sqlx::query_scalar(
        "SELECT id FROM bookings WHERE tenant_id = $1 AND group_id = $2 ORDER BY id",
    )
    .bind(w.tenant.as_str())
    .bind(group)
    .fetch_all(&mut *w.tx)
    .await?;
    let mut held = Vec::with_capacity(ids.len());
    for id in ids {
        held.push(load_for_update(&mut w.tx, &w.tenant, id).await?);
    }
    let catalog: Vec<i64> = held.iter().map(|b| b.price.total).collect();
    for (b, share) in held
        .iter_mut()
        .zip(package_shares(package, party, &catalog))
    {
        agree(w, b, share).await?;
    }
    Ok(())
}
