//! A group's total spread over its bookings: a package's price (groupType PACKAGE) or
//! staff's custom total, each booking's share in proportion to its own price by the
//! largest remainder (`domain::booking_groups::allocate`), so the shares sum exactly.

use super::super::super::catalog::load_package;
use super::{GroupError, Write};
use crate::{GroupItem, Package, PriceBreakdown};
use kairos_domain::booking_groups::allocate;
use sqlx::types::Json;
use uuid::Uuid;

/// Sets each price's total to its share of `total`, its tax in the same proportion; the
/// lines of its breakdown stay the catalog's.
pub(super) fn spread(prices: &mut [&mut PriceBreakdown], total: i64) {
    let weights: Vec<i64> = prices.iter().map(|p| p.total).collect();
    for (p, share) in prices.iter_mut().zip(allocate(total, &weights)) {
        let before = p.total;
        p.tax = if before > 0 {
            i64::try_from(i128::from(p.tax) * i128::from(share) / i128::from(before)).unwrap_or(0)
        } else {
            0
        };
        p.total = share;
    }
}

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

/// Spreads `package`'s price for `party` people over `prices` (the activities' own).
pub(super) fn apply_package(package: &Package, party: i32, prices: &mut [&mut PriceBreakdown]) {
    let catalog_total = prices.iter().map(|p| p.total).sum();
    spread(prices, package.price.total(party, catalog_total));
}

/// Re-prices the group's just-held bookings at the package's price.
pub(super) async fn price_held_at_package(
    w: &mut Write,
    group: Uuid,
    package: &Package,
    party: i32,
) -> Result<(), GroupError> {
    let rows: Vec<(Uuid, Json<PriceBreakdown>)> = sqlx::query_as(
        "SELECT id, price FROM bookings WHERE tenant_id = $1 AND group_id = $2 ORDER BY id",
    )
    .bind(w.tenant.as_str())
    .bind(group)
    .fetch_all(&mut *w.tx)
    .await?;
    let (ids, mut prices): (Vec<Uuid>, Vec<PriceBreakdown>) =
        rows.into_iter().map(|(id, p)| (id, p.0)).unzip();
    let mut refs: Vec<&mut PriceBreakdown> = prices.iter_mut().collect();
    apply_package(package, party, &mut refs);
    for (id, price) in ids.iter().zip(&prices) {
        sqlx::query("UPDATE bookings SET price = $3, total = $4 WHERE tenant_id = $1 AND id = $2")
            .bind(w.tenant.as_str())
            .bind(id)
            .bind(Json(price))
            .bind(price.total)
            .execute(&mut *w.tx)
            .await?;
    }
    Ok(())
}
