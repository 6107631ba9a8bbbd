//! Booking failures → HTTP status and spec code: the area's one table.

use super::access::booking_not_found;
use super::{PriceDto, major};
use crate::error::{ApiError, code};
use axum::http::StatusCode;
use kairos_store::{BookingError, BookingRefusal, HoldCapScope};
use serde_json::json;

impl From<BookingError> for ApiError {
    #[track_caller]
    fn from(e: BookingError) -> Self {
        match e {
            BookingError::BookingNotFound => booking_not_found(),
            BookingError::SlotNotFound => ApiError::not_found("Slot"),
            BookingError::ProductNotFound => ApiError::not_found("Product at this site"),
            BookingError::SiteNotFound => ApiError::not_found("Site"),
            BookingError::VariantNotFound => ApiError::not_found("Variant"),
            BookingError::NoteNotFound => ApiError::not_found("Note"),
            BookingError::Invalid(errors) => ApiError::validation(errors),
            BookingError::Refused(refusal) => refusal.into(),
            BookingError::Idempotency(e) => e.into(),
            BookingError::Store(e) => e.into(),
        }
    }
}

impl From<BookingRefusal> for ApiError {
    fn from(r: BookingRefusal) -> Self {
        let message = r.to_string();
        match r {
            BookingRefusal::InvalidTransition(t) => ApiError::conflict(
                code::INVALID_TRANSITION,
                format!("A {} booking cannot {}", t.from, t.trigger.name()),
            )
            .with_details(json!({"currentStatus": t.from.as_str(), "trigger": t.trigger.name()})),
            BookingRefusal::HeldInGroup(group) => ApiError::conflict(
                code::INVALID_TRANSITION,
                format!("This hold is part of booking group {group}: the group confirms it and takes its codes and vouchers (POST /api/v1/booking-groups/{group}/confirm, /apply-promo, /apply-voucher)"),
            )
            .with_details(json!({"currentStatus": "hold", "groupId": group})),
            BookingRefusal::NoTransition { from, to } => ApiError::conflict(
                code::INVALID_TRANSITION,
                format!("A {from} booking cannot become {to}"),
            )
            .with_details(json!({"currentStatus": from.as_str(), "requestedStatus": to.as_str()})),
            BookingRefusal::NotMovable { status } => ApiError::conflict(
                code::INVALID_TRANSITION,
                format!("A {status} booking cannot be rescheduled"),
            )
            .with_details(json!({"currentStatus": status.as_str()})),
            BookingRefusal::WaiversIncomplete { missing } => ApiError::conflict(
                code::WAIVERS_INCOMPLETE,
                format!(
                    "{missing} waiver(s) still missing: this activity needs everyone's waiver before they start. Collect them (sign online or record the paper waivers), then check in"
                ),
            )
            .with_details(serde_json::json!({"missingWaivers": missing})),
            BookingRefusal::CustomerBlocked => ApiError::new(
                StatusCode::FORBIDDEN,
                code::CUSTOMER_BLOCKED,
                "This customer cannot make new bookings online; please contact the venue",
            ),
            BookingRefusal::NotReducible { status } => ApiError::conflict(
                code::INVALID_TRANSITION,
                format!("A {status} booking's party cannot be reduced"),
            )
            .with_details(json!({"currentStatus": status.as_str()})),
            BookingRefusal::PaymentUnderWay => ApiError::conflict(
                code::CONFLICT,
                "An online payment of this booking is under way: change the booking once the payment has gone through or failed",
            ),
            BookingRefusal::HoldExpired => ApiError::conflict(
                code::HOLD_EXPIRED,
                "The hold expired and its seats were released; make a new hold",
            ),
            BookingRefusal::SlotUnavailable => ApiError::conflict(
                code::SLOT_UNAVAILABLE,
                "The slot is full for this party, has started or is closed",
            ),
            BookingRefusal::SlotStarted => ApiError::conflict(
                code::SLOT_UNAVAILABLE,
                "The slot has started; a hold on it can no longer be confirmed",
            ),
            BookingRefusal::NoSlotAtStart => ApiError::conflict(
                code::SLOT_UNAVAILABLE,
                "The product has no slot starting at startTime",
            ),
            BookingRefusal::SlotClosed { started: true } => ApiError::conflict(
                code::SLOT_UNAVAILABLE,
                "The slot has started; use skipAvailabilityCheck to book it anyway",
            ),
            BookingRefusal::SlotClosed { started: false } => ApiError::conflict(
                code::SLOT_UNAVAILABLE,
                "The slot no longer matches the schedule; use skipAvailabilityCheck to book it anyway",
            ),
            BookingRefusal::OutsideWindow { starts_at } => ApiError::conflict(
                code::OUTSIDE_WINDOW,
                "The booking is too close to its start time to be changed online; contact the venue",
            )
            .with_details(json!({"startTime": starts_at})),
            BookingRefusal::AmountExceedsBalance { balance } => {
                ApiError::conflict(code::AMOUNT_EXCEEDS_BALANCE, message)
                    .with_details(json!({"balanceMinor": balance}))
            }
            BookingRefusal::PricingChanged { price } => ApiError::conflict(
                code::PRICING_CHANGED,
                "The price changed since it was quoted; confirm again with the new pricingHash",
            )
            .with_details(json!({
                "pricingHash": price.pricing_hash,
                "price": PriceDto::from(&*price),
            })),
            BookingRefusal::ItemWithdrawn => ApiError::conflict(
                code::PRICING_CHANGED,
                "The product, its variant, an add-on or a ticket type of this hold is no longer offered; make a new hold",
            )
            .with_details(json!({"reason": "item_withdrawn"})),
            BookingRefusal::TooManyHolds { scope, limit } => ApiError::conflict(
                code::HOLD_LIMIT_REACHED,
                match scope {
                    HoldCapScope::Customer => format!(
                        "This customer already has {limit} bookings on hold, the most allowed \
                         at once; confirm or cancel one, or wait for one to expire"
                    ),
                    HoldCapScope::Address => format!(
                        "{limit} bookings are already on hold from this network, the most \
                         allowed at once; confirm or cancel one, or wait for one to expire"
                    ),
                },
            )
            .with_details(json!({"scope": scope.as_str(), "limit": limit})),
            BookingRefusal::NotAHold { status } => ApiError::conflict(
                code::INVALID_TRANSITION,
                format!(
                    "Promotions and vouchers apply to bookings on hold; this booking is {status}"
                ),
            )
            .with_details(json!({"currentStatus": status.as_str()})),
            BookingRefusal::InvalidPromotion { reason } => ApiError::new(
                StatusCode::BAD_REQUEST,
                code::INVALID_PROMOTION,
                reason.message(),
            )
            .with_details(json!({"valid": false, "reason": reason.as_str()})),
            BookingRefusal::MinSpendNotMet {
                minimum,
                subtotal,
                currency,
            } => ApiError::conflict(
                code::MIN_SPEND_NOT_MET,
                "The booking does not reach this code's minimum spend",
            )
            .with_details(json!({
                "reason": "min_spend_not_met",
                "minimum_spend": major(minimum, &currency),
                "current_subtotal": major(subtotal, &currency),
                "currency": currency,
            })),
            BookingRefusal::UsageLimitExceeded { reason, limit } => ApiError::conflict(
                code::USAGE_LIMIT_EXCEEDED,
                reason.message(),
            )
            .with_details(json!({"reason": reason.as_str(), "limit": limit})),
            BookingRefusal::StackingViolation {
                code: promo,
                conflicts_with,
            } => ApiError::conflict(
                code::STACKING_VIOLATION,
                format!("{promo} cannot be combined with {conflicts_with}: one of them is not stackable; remove the other code first"),
            )
            .with_details(json!({"code": promo, "conflictsWith": conflicts_with})),
            BookingRefusal::PromotionNotApplied { code: promo } => ApiError::new(
                StatusCode::NOT_FOUND,
                code::NOT_FOUND,
                format!("This booking has no promotion {promo}"),
            ),
            BookingRefusal::VoucherNotFound => ApiError::not_found("Voucher"),
            BookingRefusal::VoucherUnusable { reason } => ApiError::new(
                StatusCode::BAD_REQUEST,
                code::INVALID_PROMOTION,
                match reason {
                    "inactive" => "This voucher is no longer valid",
                    "expired" => "This voucher has expired",
                    _ => "This voucher has been used as often as it allows",
                },
            )
            .with_details(json!({"valid": false, "reason": reason})),
            BookingRefusal::InsufficientFunds { balance, currency } => ApiError::new(
                StatusCode::BAD_REQUEST,
                code::INSUFFICIENT_FUNDS,
                "The voucher has no balance left",
            )
            .with_details(json!({"balance": major(balance, &currency), "currency": currency})),
            BookingRefusal::VouchersDoNotCover { total, currency } => ApiError::new(
                StatusCode::BAD_REQUEST,
                code::INSUFFICIENT_FUNDS,
                "The vouchers applied do not cover the total; pay the rest with another method",
            )
            .with_details(json!({"amountDue": major(total, &currency), "currency": currency})),
            BookingRefusal::AddonConfigNotFound { index } => ApiError::new(
                StatusCode::NOT_FOUND,
                code::NOT_FOUND,
                "Resource add-on configuration not found: it is not an active resource add-on of this booking's product",
            )
            .with_details(json!({"field": format!("selections[{index}].configId")})),
            BookingRefusal::DurationNotAllowed { field, message } => {
                let mut errors = kairos_domain::FieldErrors::new();
                errors.add(field, message);
                let mut e = ApiError::validation(errors);
                e.status = StatusCode::UNPROCESSABLE_ENTITY;
                e
            }
            BookingRefusal::ResourceUnavailable { resource_id } => ApiError::conflict(
                code::CONFLICT,
                "The resource is not available for the requested window; choose another window",
            )
            .with_details(json!({"reason": "resource_unavailable", "resourceId": resource_id})),
            BookingRefusal::SessionUnavailable {
                resource_id,
                skill_id,
            } => {
                let (message, details) = match (resource_id, skill_id) {
                    (Some(r), _) => (
                        "A room, piece of equipment or other resource this session needs is taken at this time; choose another time",
                        json!({"reason": "resource_unavailable", "resourceId": r}),
                    ),
                    (None, s) => (
                        "No qualified staff member is free for this session; choose another time",
                        json!({"reason": "staff_unavailable", "skillId": s}),
                    ),
                };
                ApiError::conflict(code::SLOT_UNAVAILABLE, message).with_details(details)
            }
            BookingRefusal::ResourcePolicy { policy, message } => ApiError::conflict(
                code::CONFLICT,
                format!("The resource is not available for the requested window: {message}"),
            )
            .with_details(json!({"reason": "resource_policy", "policy": policy})),
            BookingRefusal::AddonsClosed { status } => ApiError::conflict(
                code::INVALID_TRANSITION,
                format!("A {status} booking's resource add-ons cannot be changed online; contact the venue"),
            )
            .with_details(json!({"currentStatus": status.as_str()})),
            BookingRefusal::AllocationNotFound { allocation_id } => ApiError::new(
                StatusCode::NOT_FOUND,
                code::NOT_FOUND,
                "The booking has no such resource add-on",
            )
            .with_details(json!({"allocationId": allocation_id})),
            BookingRefusal::ResourceConflict {
                conflicts,
                pricing_hash,
                currency,
            } => crate::resources::conflict_error(&conflicts, &pricing_hash, &currency),
            BookingRefusal::NothingToPay => ApiError::conflict(
                code::CONFLICT,
                "Nothing is left to pay on this booking; confirm it with paymentMethod voucher",
            ),
        }
    }
}
