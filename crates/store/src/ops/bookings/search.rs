//! Reading bookings: one booking, staff search with its summary, and a customer's history.

use super::{BOOKING_COLUMNS, BookingRow, Db, Repo, ViewRow};
use crate::{
    Booking, BookingFilter, BookingPage, BookingSort, BookingView, StoreError, StoreResult,
};
use kairos_domain::TenantId;
use kairos_domain::bookings::BookingStatus;
use kairos_store_macros::operations;
use sqlx::QueryBuilder;
use uuid::Uuid;

/// Digits of a phone number, the key phone lookups compare.
pub(super) fn phone_key(phone: &str) -> String {
    phone.chars().filter(char::is_ascii_digit).collect()
}

/// Appends a search filter's conditions to `q` (which ends in a WHERE clause on tenant).
pub(super) fn push_filter(q: &mut QueryBuilder<Db>, f: &BookingFilter) {
    let like = |s: &str| {
        let escaped = s
            .to_lowercase()
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        format!("%{escaped}%")
    };
    if let Some(email) = &f.email_contains {
        q.push(" AND b.customer_email LIKE ")
            .push_bind(like(email))
            .push(" ESCAPE '\\'");
    }
    if let Some(name) = &f.name_contains {
        q.push(" AND LOWER(b.customer_name) LIKE ")
            .push_bind(like(name))
            .push(" ESCAPE '\\'");
    }
    if let Some(phone) = &f.phone {
        q.push(" AND b.customer_phone_key = ")
            .push_bind(phone_key(phone));
    }
    if !f.statuses.is_empty() {
        q.push(" AND b.status IN (");
        let mut sep = q.separated(", ");
        for s in &f.statuses {
            sep.push_bind(s.as_str());
        }
        q.push(")");
    }
    if let Some(id) = f.site_id {
        q.push(" AND b.site_id = ").push_bind(id);
    }
    if let Some(id) = f.product_id {
        q.push(" AND b.product_id = ").push_bind(id);
    }
    if let Some(id) = f.customer_id {
        q.push(" AND b.customer_id = ").push_bind(id);
    }
    if let Some(t) = f.starts_from {
        q.push(" AND b.starts_at >= ").push_bind(t);
    }
    if let Some(t) = f.starts_before {
        q.push(" AND b.starts_at < ").push_bind(t);
    }
    if let Some(v) = f.min_total {
        q.push(" AND b.total >= ").push_bind(v);
    }
    if let Some(v) = f.max_total {
        q.push(" AND b.total <= ").push_bind(v);
    }
}

pub(super) const VIEW_FROM: &str = "FROM bookings b
     JOIN sites s ON s.tenant_id = b.tenant_id AND s.id = b.site_id
     JOIN products p ON p.tenant_id = b.tenant_id AND p.id = b.product_id";

#[operations]
impl Repo {
    pub async fn get_booking(&self, tenant: &TenantId, id: Uuid) -> StoreResult<Option<Booking>> {
        let row: Option<BookingRow> = sqlx::query_as(sql!(
            "SELECT {BOOKING_COLUMNS} FROM bookings b WHERE b.tenant_id = $1 AND b.id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(Booking::try_from).transpose()
    }

    /// A page of bookings matching `filter`, with the counts and totals per status of the
    /// whole filtered set.
    pub async fn search_bookings(
        &self,
        tenant: &TenantId,
        filter: BookingFilter,
        sort: BookingSort,
        descending: bool,
        page: u32,
        limit: u32,
    ) -> StoreResult<BookingPage> {
        let mut q = QueryBuilder::<Db>::new(
            "SELECT b.status, COUNT(*), CAST(COALESCE(SUM(b.total), 0) AS BIGINT) FROM bookings b WHERE b.tenant_id = ",
        );
        q.push_bind(tenant.as_str());
        push_filter(&mut q, &filter);
        q.push(" GROUP BY b.status ORDER BY b.status");
        let groups: Vec<(String, i64, i64)> = q.build_query_as().fetch_all(&self.read).await?;
        let mut by_status = Vec::with_capacity(groups.len());
        let mut total = 0u64;
        for (status, count, sum) in groups {
            let status = BookingStatus::parse(&status)
                .ok_or_else(|| StoreError::Corrupt(format!("booking status '{status}'")))?;
            let count = u64::try_from(count).unwrap_or(0);
            total += count;
            by_status.push((status, count, sum));
        }
        let column = match sort {
            BookingSort::CreatedAt => "b.created_at",
            BookingSort::StartTime => "b.starts_at",
            BookingSort::GrandTotal => "b.total",
            BookingSort::CustomerName => "LOWER(b.customer_name)",
            BookingSort::Status => "b.status",
            BookingSort::Reference => "b.reference",
        };
        let direction = if descending { "DESC" } else { "ASC" };
        let mut q = QueryBuilder::<Db>::new(format!(
            "SELECT {BOOKING_COLUMNS}, s.name AS site_name, p.name AS product_name {VIEW_FROM}
             WHERE b.tenant_id = "
        ));
        q.push_bind(tenant.as_str());
        push_filter(&mut q, &filter);
        q.push(format!(
            " ORDER BY {column} {direction}, b.id {direction} LIMIT "
        ));
        q.push_bind(i64::from(limit));
        q.push(" OFFSET ");
        q.push_bind(i64::from(page.saturating_sub(1)) * i64::from(limit));
        let rows: Vec<ViewRow> = q.build_query_as().fetch_all(&self.read).await?;
        let items = rows
            .into_iter()
            .map(BookingView::try_from)
            .collect::<StoreResult<_>>()?;
        Ok(BookingPage {
            items,
            total,
            by_status,
        })
    }

    /// One booking with its site and product names.
    pub async fn get_booking_view(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> StoreResult<Option<BookingView>> {
        let row: Option<ViewRow> = sqlx::query_as(sql!(
            "SELECT {BOOKING_COLUMNS}, s.name AS site_name, p.name AS product_name {VIEW_FROM}
             WHERE b.tenant_id = $1 AND b.id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(BookingView::try_from).transpose()
    }

    /// Every booking of a customer, found by account id, email or phone; newest first.
    pub async fn bookings_of_customer(
        &self,
        tenant: &TenantId,
        account: Option<Uuid>,
        email: Option<String>,
        phone: Option<String>,
    ) -> StoreResult<Vec<BookingView>> {
        let mut q = QueryBuilder::<Db>::new(format!(
            "SELECT {BOOKING_COLUMNS}, s.name AS site_name, p.name AS product_name {VIEW_FROM}
             WHERE b.tenant_id = "
        ));
        q.push_bind(tenant.as_str());
        q.push(" AND (1 = 0");
        if let Some(id) = account {
            q.push(" OR b.customer_id = ").push_bind(id);
        }
        if let Some(email) = email {
            q.push(" OR b.customer_email = ")
                .push_bind(email.to_lowercase());
        }
        if let Some(phone) = phone.map(|p| phone_key(&p)).filter(|k| !k.is_empty()) {
            q.push(" OR b.customer_phone_key = ").push_bind(phone);
        }
        q.push(") ORDER BY b.starts_at DESC, b.id DESC");
        let rows: Vec<ViewRow> = q.build_query_as().fetch_all(&self.read).await?;
        rows.into_iter().map(BookingView::try_from).collect()
    }
}
