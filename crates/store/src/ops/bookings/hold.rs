//! Creating a booking: a public hold or a staff booking takes its seats.

use super::offer::{Offer, load_addons, load_offer, load_variant};
use super::search::phone_key;
use super::seats::take_seats_reclaiming;
use super::{Change, Repo, Write, dialect};
use crate::pricing::{Chosen, check_addons, check_types, price_booking};
use crate::{
    Actor, Booking, BookingCustomer, BookingError, BookingRefusal, CreatedBooking, HoldCapScope,
    HoldCaps, Idempotency, NewBooking, Reductions, SeatPolicy, SlotChoice, Timestamp, Written,
};
use kairos_domain::FieldErrors;
use kairos_domain::bookings::{BookingSource, BookingStatus};
use kairos_domain::ids::new_reference;
use kairos_domain::new_id;
use kairos_domain::pricing::AddonMode;
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::types::Json;

#[operations]
impl Repo {
    /// Creates a booking in one transaction: reads the product, site, slot, variant and
    /// add-ons, checks the request against them, prices it, writes the booking and takes
    /// its seats, with its audit row, its confirmation message and, under an
    /// Idempotency-Key, the stored response.
    pub async fn create_booking(
        &self,
        tenant: &kairos_domain::TenantId,
        new: NewBooking,
        actor: &Actor,
        now: Timestamp,
        idem: Option<Idempotency<'_, CreatedBooking>>,
    ) -> Result<Written<CreatedBooking>, BookingError> {
        let mut w = self.begin(tenant, now).await?;
        if let Some(replay) = w.claim::<_, BookingError>(idem.as_ref()).await? {
            return Ok(Written::Replayed(replay));
        }
        let result = create(&mut w, new, actor).await;
        w.finish(result, idem.map(|i| i.render))
            .await
            .map(Written::Done)
    }
}

/// The product, site and slot of a new booking, checked: 404s for what names nothing
/// bookable, and for staff the slot's state as warnings.
fn check_offer(
    offer: &Offer,
    new: &NewBooking,
    now: Timestamp,
) -> Result<Vec<&'static str>, BookingError> {
    if !offer.product.is_active || offer.product.site_id != new.site_id {
        return Err(BookingError::ProductNotFound);
    }
    if !offer.site_is_active {
        return Err(BookingError::SiteNotFound);
    }
    let slot = match (&offer.slot, new.slot) {
        (Some(slot), _) => slot,
        (None, SlotChoice::Id(_)) => return Err(BookingError::SlotNotFound),
        (None, SlotChoice::StartingAt(_)) => return Err(BookingRefusal::NoSlotAtStart.into()),
    };
    let started = slot.starts_at <= now;
    let mut warnings = Vec::new();
    if new.source == BookingSource::Admin {
        if (started || slot.is_orphaned) && !new.allow_closed_slot {
            return Err(BookingRefusal::SlotClosed { started }.into());
        }
        if started {
            warnings.push("slot_started");
        }
        if slot.is_orphaned {
            warnings.push("slot_orphaned");
        }
    }
    Ok(warnings)
}

async fn create(
    w: &mut Write,
    new: NewBooking,
    actor: &Actor,
) -> Result<CreatedBooking, BookingError> {
    create_in(w, new, actor, None).await
}

/// A booking made as one activity of a booking group: its id (the group plan's), its
/// group, and the hold expiry all the group's bookings share.
pub(super) struct GroupLink {
    pub group_id: uuid::Uuid,
    pub booking_id: uuid::Uuid,
    pub hold_expires_at: Timestamp,
}

/// Creates a booking; with `link`, as one of a group's bookings.
pub(super) async fn create_in(
    w: &mut Write,
    mut new: NewBooking,
    actor: &Actor,
    link: Option<&GroupLink>,
) -> Result<CreatedBooking, BookingError> {
    let offer = load_offer(&mut w.tx, &w.tenant, new.product_id, Some(new.slot))
        .await?
        .ok_or(BookingError::ProductNotFound)?;
    let mut warnings = check_offer(&offer, &new, w.now)?;
    let variant = match new.variant_id {
        None => None,
        Some(id) => Some(
            load_variant(&mut w.tx, &w.tenant, offer.product.id, id)
                .await?
                .ok_or(BookingError::VariantNotFound)?,
        ),
    };
    let catalog = if new.addons.is_empty() {
        Vec::new()
    } else {
        load_addons(&mut w.tx, &w.tenant, offer.product.id).await?
    };
    let mut errors = FieldErrors::new();
    if new.party_size > offer.product.capacity {
        errors.add(
            "partySize",
            format!(
                "must be at most {} for this product",
                offer.product.capacity
            ),
        );
    }
    check_addons(&mut errors, &catalog, &new.addons);
    let party = u32::try_from(new.party_size).unwrap_or(0);
    check_types(&mut errors, &offer.product, &new.participant_types, party);
    if !errors.is_empty() {
        return Err(BookingError::Invalid(errors));
    }
    // Store what is priced: one per participant for per-participant add-ons.
    for c in &mut new.addons {
        if catalog
            .iter()
            .any(|a| a.id == c.addon_id && a.mode == AddonMode::PerParticipant)
        {
            c.quantity = party;
        }
    }
    let price = price_booking(
        &offer.product,
        variant.as_ref(),
        &catalog,
        Chosen {
            addons: &new.addons,
            resources: &[],
            types: &new.participant_types,
            agreed: None,
        },
        party,
        offer.currency,
        &Reductions::default(),
    );
    let Some(slot) = offer.slot.as_ref() else {
        return Err(BookingError::SlotNotFound);
    };
    let (slot_id, starts_at, ends_at) = (slot.id, slot.starts_at, slot.ends_at);
    let now = w.now;
    let hold_expires_at = (new.status == BookingStatus::Hold)
        .then(|| link.map_or_else(|| now + offer.hold_ttl(), |l| l.hold_expires_at));
    let customer_id = match new.customer.id {
        Some(id) => Some(id),
        // Staff bookings join the account with the customer's email. An anonymous
        // public hold does not, or anyone could put bookings into someone's account.
        None if new.source == BookingSource::Admin && !new.customer.email.is_empty() => {
            sqlx::query_scalar("SELECT id FROM customers WHERE tenant_id = $1 AND email = $2")
                .bind(w.tenant.as_str())
                .bind(&new.customer.email)
                .fetch_optional(&mut *w.tx)
                .await?
        }
        None => None,
    };
    // A customer blocked after a no-show books through staff only.
    if new.source != BookingSource::Admin {
        super::super::operations::refuse_blocked(w, &new.customer.email, customer_id).await?;
    }
    // A group's caps are checked once for the whole group (it counts as one hold).
    if let (Some(caps), None) = (&new.hold_caps, link) {
        check_hold_caps(w, caps, &new.customer.email, customer_id).await?;
    }
    let id = link.map_or_else(new_id, |l| l.booking_id);
    let confirmed_at = (new.status != BookingStatus::Hold).then_some(now);
    let terms_accepted_at = new.terms_accepted_on_behalf.then_some(now);
    let terms_accepted_by = new
        .terms_accepted_on_behalf
        .then(|| actor.name.clone().or_else(|| actor.id.clone()))
        .flatten();
    let mut reference = new_reference();
    loop {
        let inserted = sqlx::query(
            "INSERT INTO bookings (tenant_id, id, reference, site_id, product_id, slot_id,
                 starts_at, ends_at, variant_id, customer_id, customer_name, customer_email,
                 customer_phone, customer_phone_key, party_size, status, hold_expires_at,
                 addons, participants, price, total, currency, pricing_hash, token_hash,
                 source, payment_method, admin_notes, send_confirmation, created_by,
                 created_at, updated_at, confirmed_at, client_address, created_reason,
                 terms_accepted_at, terms_accepted_by, group_id)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                 $17, $18, $19, $20, $21, $22, $23, $24, $25, NULL, $26, $27, $28, $29, $29,
                 $30, $31, $32, $33, $34, $35)
             ON CONFLICT (tenant_id, reference) DO NOTHING",
        )
        .bind(w.tenant.as_str())
        .bind(id)
        .bind(&reference)
        .bind(new.site_id)
        .bind(new.product_id)
        .bind(slot_id)
        .bind(starts_at)
        .bind(ends_at)
        .bind(new.variant_id)
        .bind(customer_id)
        .bind(&new.customer.name)
        .bind(&new.customer.email)
        .bind(&new.customer.phone)
        .bind(phone_key(&new.customer.phone))
        .bind(new.party_size)
        .bind(new.status.as_str())
        .bind(hold_expires_at)
        .bind(Json(&new.addons))
        .bind(Json(&new.participants))
        .bind(Json(&price))
        .bind(price.total)
        .bind(&price.currency)
        .bind(&price.pricing_hash)
        .bind(&new.token_hash)
        .bind(new.source.as_str())
        .bind(new.admin_notes.as_deref())
        .bind(new.send_confirmation)
        .bind(actor.id.as_deref())
        .bind(now)
        .bind(confirmed_at)
        .bind(new.hold_caps.as_ref().and_then(|c| c.address.as_deref()))
        .bind(new.created_reason.map(|r| r.as_str()))
        .bind(terms_accepted_at)
        .bind(terms_accepted_by.as_deref())
        .bind(link.map(|l| l.group_id))
        .execute(&mut *w.tx)
        .await?;
        if inserted.rows_affected() == 1 {
            break;
        }
        // Another booking has this reference (1 in 10^12 per pair): draw again.
        reference = new_reference();
    }
    let booking = Booking {
        id,
        reference,
        site_id: new.site_id,
        product_id: new.product_id,
        slot_id,
        starts_at,
        ends_at,
        variant_id: new.variant_id,
        customer: BookingCustomer {
            id: customer_id,
            ..new.customer
        },
        party_size: new.party_size,
        status: new.status,
        hold_expires_at,
        addons: new.addons,
        participants: new.participants,
        price,
        paid_amount: 0,
        token_hash: new.token_hash,
        source: new.source,
        payment_method: None,
        admin_notes: new.admin_notes,
        send_confirmation: new.send_confirmation,
        created_by: actor.id.clone(),
        created_at: now,
        updated_at: now,
        confirmed_at,
        created_reason: new.created_reason,
        terms_accepted_at,
        terms_accepted_by,
        cancellation: None,
        canceled_at: None,
    };
    w.audit(
        actor,
        Change {
            action: "booking.created",
            entity_type: "booking",
            entity_id: id.to_string(),
            changes: json!({
                "status": {"from": null, "to": booking.status.as_str()},
                "source": booking.source,
                "slotId": slot_id,
                "partySize": booking.party_size,
                "seatPolicy": format!("{:?}", new.seats),
            }),
        },
    );
    // Its confirmation is sent by the automation rule on booking_created.
    // The seats last: on a busy slot its row lock is then held only for this statement
    // and the commit. Should the slot be full, the whole transaction rolls back.
    w.flush().await?;
    let (party_size, seats) = (booking.party_size, new.seats);
    let booked = take_seats_reclaiming(w, slot_id, party_size, seats).await?;
    if seats == SeatPolicy::BypassCapacity && booked.booked > booked.capacity {
        warnings.push("capacity_exceeded");
    }
    Ok(CreatedBooking { booking, warnings })
}

/// Refuses a hold past the caps on the live holds of its customer (account or email) or
/// its client address in this tenant. Each count is taken inside the hold's transaction,
/// after a lock on the keys it counts (PostgreSQL; SQLite has one writer), so parallel
/// holds of one client cannot slip past the cap together.
pub(super) async fn check_hold_caps(
    w: &mut Write,
    caps: &HoldCaps,
    email: &str,
    customer_id: Option<uuid::Uuid>,
) -> Result<(), BookingError> {
    if caps.per_customer > 0 && (!email.is_empty() || customer_id.is_some()) {
        let live = live_holds(w, HoldsOf::Customer { email, customer_id }).await?;
        refuse_past(live, caps.per_customer, HoldCapScope::Customer)?;
    }
    if let (limit @ 1.., Some(address)) = (caps.per_address, caps.address.as_deref()) {
        let live = live_holds(w, HoldsOf::Address(address)).await?;
        refuse_past(live, limit, HoldCapScope::Address)?;
    }
    Ok(())
}

/// Whose live holds a cap counts.
enum HoldsOf<'a> {
    /// A customer's: by account, and by email (an anonymous hold under the account's
    /// email counts too).
    Customer {
        email: &'a str,
        customer_id: Option<uuid::Uuid>,
    },
    Address(&'a str),
}

/// Locks the keys of `whose` holds, then counts them (the tenant's live holds).
async fn live_holds(w: &mut Write, whose: HoldsOf<'_>) -> Result<i64, BookingError> {
    let tenant = w.tenant.as_str().to_owned();
    // A group's holds count as one.
    const LIVE: &str = "SELECT COUNT(DISTINCT COALESCE(group_id, id)) FROM bookings
         WHERE tenant_id = $1 AND status = 'hold' AND hold_expires_at > $2 AND ";
    let live = match whose {
        HoldsOf::Customer { email, customer_id } => {
            // Both keys, always in this order, so that the two serialise together.
            if !email.is_empty() {
                dialect::lock_key(&mut w.tx, &format!("holds:{tenant}:email:{email}")).await?;
            }
            if let Some(id) = customer_id {
                dialect::lock_key(&mut w.tx, &format!("holds:{tenant}:customer:{id}")).await?;
            }
            sqlx::query_scalar(sql!(
                "{LIVE}((customer_email = $3 AND $3 <> '') OR customer_id = $4)"
            ))
            .bind(&tenant)
            .bind(w.now)
            .bind(email)
            .bind(customer_id)
            .fetch_one(&mut *w.tx)
            .await?
        }
        HoldsOf::Address(address) => {
            dialect::lock_key(&mut w.tx, &format!("holds:{tenant}:address:{address}")).await?;
            sqlx::query_scalar(sql!("{LIVE}client_address = $3"))
                .bind(&tenant)
                .bind(w.now)
                .bind(address)
                .fetch_one(&mut *w.tx)
                .await?
        }
    };
    Ok(live)
}

fn refuse_past(live: i64, limit: u32, scope: HoldCapScope) -> Result<(), BookingError> {
    if live >= i64::from(limit) {
        return Err(BookingRefusal::TooManyHolds { scope, limit }.into());
    }
    Ok(())
}
