//! The venue and the customers' traffic: holds in waves, and confirmations by fate.

use crate::instances::Api;
use crate::{CAPACITY, CARD_KEY};
use serde_json::{Value, json};
use uuid::Uuid;

/// What becomes of a hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Confirmed to pay on arrival: tentative, with one confirmation email.
    PayOnArrival,
    /// Confirmed by card and never paid: cancelled at the payment deadline, with one
    /// confirmation and one cancellation email.
    CardUnpaid,
    /// Confirmed by card and paid at the provider, whose event never arrives: settled by
    /// the deadline's poll of the provider, with one confirmation and one receipt.
    CardPaidEventLost,
    /// Left alone: expires after its minute, with no email.
    Expires,
}

impl Fate {
    /// The status a booking of this fate ends in.
    pub fn end_status(self) -> &'static str {
        match self {
            Fate::PayOnArrival => "tentative",
            Fate::CardUnpaid => "canceled",
            Fate::CardPaidEventLost => "paid",
            Fate::Expires => "expired",
        }
    }

    /// The status changes (audit triggers) a booking of this fate goes through.
    pub fn triggers(self) -> &'static [&'static str] {
        match self {
            Fate::PayOnArrival => &["confirm_pay_on_arrival"],
            Fate::CardUnpaid => &["cancel", "confirm"],
            Fate::CardPaidEventLost => &["confirm", "payment_recorded"],
            Fate::Expires => &["expire"],
        }
    }

    /// How many messages of kind `key` a booking of this fate gets.
    pub fn messages(self, key: &str) -> i64 {
        i64::from(match key {
            "booking_confirmation" => self != Fate::Expires,
            "cancellation" => self == Fate::CardUnpaid,
            "payment_receipt" => self == Fate::CardPaidEventLost,
            _ => false,
        })
    }
}

/// A hold that was made.
#[derive(Debug, Clone)]
pub struct Held {
    pub id: Uuid,
    /// Index of its slot.
    pub slot: usize,
    pub party: i64,
    token: String,
    hash: String,
    pub fate: Fate,
    /// The provider's PaymentIntent of a card payment.
    pub intent: Option<String>,
}

/// A wave of holds: how many were tried for how many seats, those made, and the party
/// sizes refused per slot index.
pub struct Wave {
    pub attempts: usize,
    pub seats_asked: i64,
    pub held: Vec<Held>,
    pub refused: Vec<(usize, i64)>,
}

/// The site and product the traffic books.
pub struct Venue {
    site: String,
    product: String,
    /// The three slots of one day.
    pub slots: Vec<String>,
}

/// Builds the venue through the API, each step on the next instance (one token works on
/// all of them): a site whose holds last a minute, a product of `CAPACITY` seats open
/// 10:00–13:00 daily, and, with `cardpay`, card payments at the shared provider. Its slots
/// are the three of the day four days from now.
pub async fn venue(api: &Api, cardpay: bool) -> Venue {
    let site = api
        .staff(
            "POST",
            "/api/v1/admin/sites",
            json!({"name": "Main hall", "timezone": "Europe/Helsinki", "holdTtlMinutes": 1}),
        )
        .await;
    let site = site["id"].as_str().unwrap_or_default().to_owned();
    let product = api
        .staff(
            "POST",
            "/api/v1/admin/products",
            json!({"siteId": site, "name": "Climbing session", "durationMins": 60,
                   "capacity": CAPACITY, "basePrice": 20.0, "priceType": "per_person",
                   "taxRate": 24, "slotIntervalMin": 60}),
        )
        .await;
    let product = product["id"].as_str().unwrap_or_default().to_owned();
    api.staff(
        "POST",
        "/api/v1/admin/schedules/templates",
        json!({"scopeType": "site", "scopeId": site, "recurrenceKind": "daily",
               "startTime": "10:00", "endTime": "13:00"}),
    )
    .await;
    if cardpay {
        let webhook = format!("whsec_{}", Uuid::new_v4().simple());
        api.staff(
            "PUT",
            "/api/v1/admin/payments/credentials/cardpay",
            json!({"secretKey": CARD_KEY, "webhookSecret": webhook}),
        )
        .await;
    }
    let day = (chrono::Utc::now() + chrono::Duration::days(4)).format("%Y-%m-%d");
    let path = format!(
        "/api/v1/availability?site_id={site}&product_id={product}&date_from={day}&date_to={day}&party_size=1"
    );
    let (status, free) = api.send("GET", &path, &[], None, false).await;
    assert_eq!(status, 200, "{free}");
    let slots = kairos_testkit::slot_ids(&free);
    assert_eq!(slots.len(), 3, "three slots on {day}: {free}");
    Venue {
        site,
        product,
        slots,
    }
}

/// `per_slot` anonymous holds on every slot of `venue`, of `parties` people in turn, each
/// for another customer, all at once. A hold is made, or refused as SLOT_UNAVAILABLE;
/// anything else fails the test.
pub async fn hold_wave(
    api: &Api,
    venue: &Venue,
    per_slot: usize,
    parties: &[i64],
    wave: &str,
) -> Wave {
    let attempts = (0..venue.slots.len()).flat_map(|s| (0..per_slot).map(move |k| (s, k)));
    let answers = futures::future::join_all(attempts.map(|(s, k)| async move {
        let party = parties[k % parties.len()];
        let body = json!({
            "siteId": venue.site, "productId": venue.product, "slotId": venue.slots[s],
            "partySize": party,
            "customer": {"name": format!("Guest {wave}{s}-{k}"),
                         "email": format!("guest-{wave}{s}-{k}@example.com")}
        });
        let (status, answer) = api
            .send("POST", "/api/v1/bookings/hold", &[], Some(body), false)
            .await;
        (s, party, status, answer)
    }))
    .await;
    let mut wave = Wave {
        attempts: answers.len(),
        seats_asked: answers.iter().map(|(_, party, ..)| party).sum(),
        held: Vec::new(),
        refused: Vec::new(),
    };
    for (slot, party, status, answer) in answers {
        match status {
            200 => wave.held.push(Held {
                id: text(&answer, "id")
                    .parse()
                    .unwrap_or_else(|e| panic!("{e}: {answer}")),
                slot,
                party,
                token: text(&answer, "bookingToken"),
                hash: text(&answer, "pricingHash"),
                fate: Fate::Expires,
                intent: None,
            }),
            409 if answer["error"] == "SLOT_UNAVAILABLE" => wave.refused.push((slot, party)),
            _ => panic!("a hold answered {status}: {answer}"),
        }
    }
    wave
}

fn text(body: &Value, field: &str) -> String {
    body[field]
        .as_str()
        .unwrap_or_else(|| panic!("no {field}: {body}"))
        .to_owned()
}

/// Confirms `held` as its fate says, with its booking token (a hold left to expire is
/// not confirmed); a card payment's intent is kept.
pub async fn confirm(api: &Api, held: &mut Held) {
    let method = match held.fate {
        Fate::PayOnArrival => "poa",
        Fate::CardUnpaid | Fate::CardPaidEventLost => "cardpay",
        Fate::Expires => return,
    };
    let path = format!("/api/v1/bookings/{}/confirm", held.id);
    let body = json!({"pricingHash": held.hash, "paymentMethod": method});
    let token = [("x-booking-token", held.token.as_str())];
    let (status, answer) = api.send("POST", &path, &token, Some(body), false).await;
    assert_eq!(status, 200, "confirm {method}: {answer}");
    let expected = if method == "poa" {
        "tentative"
    } else {
        "confirmed"
    };
    assert_eq!(answer["status"], expected, "{answer}");
    held.intent = answer["payment"]["paymentIntentId"]
        .as_str()
        .map(str::to_owned);
}
