//! Composing a booking's messages inside a write: the booking's variables (spec Part B
//! 4.7) in its site's time zone, the template of each channel by the resolution chain,
//! the customer's choices, and queueing what may be sent.

use super::super::write::Write;
use super::messages::enqueue;
use crate::{NewMessage, StoreError, Timestamp};
use kairos_domain::messaging::catalog::{self, Resolved, Scoped};
use kairos_domain::messaging::{Channel, Preferences, Priority, Withheld, allowed, render};
use kairos_domain::money::to_major;
use kairos_domain::tenancy::Currency;
use serde_json::{Value, json};
use uuid::Uuid;

/// What a booking's messages say and whom they go to, read in the write's transaction.
#[derive(Debug, Clone, kairos_store_macros::FromRow)]
pub(crate) struct BookingFacts {
    pub id: Uuid,
    pub reference: String,
    pub status: String,
    pub starts_at: Timestamp,
    pub party_size: i32,
    pub customer_id: Option<Uuid>,
    pub customer_name: String,
    pub customer_email: String,
    pub customer_phone: String,
    pub total: i64,
    pub currency: String,
    pub confirmed_at: Option<Timestamp>,
    pub paid_at: Option<Timestamp>,
    pub completed_at: Option<Timestamp>,
    pub payment_method: Option<String>,
    pub payment_reference: Option<String>,
    pub send_confirmation: bool,
    pub site_id: Uuid,
    pub site_name: String,
    pub timezone: String,
    pub locale: String,
    pub address: Option<String>,
    pub contact_email: Option<String>,
    pub contact_phone: Option<String>,
    pub product_name: String,
    pub business_name: String,
    pub tenant_id: String,
    pub requires_waiver: bool,
}

/// Reads a booking's facts, locking the booking (PostgreSQL) so that a cancellation
/// waits for a message being decided, or the other way round.
pub(crate) async fn booking_facts(
    w: &mut Write,
    booking: Uuid,
) -> Result<Option<BookingFacts>, StoreError> {
    let locked: Option<i32> = sqlx::query_scalar(sql!(
        "SELECT 1 FROM bookings WHERE tenant_id = $1 AND id = $2{}",
        super::super::dialect::FOR_UPDATE
    ))
    .bind(w.tenant.as_str())
    .bind(booking)
    .fetch_optional(&mut *w.tx)
    .await?;
    if locked.is_none() {
        return Ok(None);
    }
    let facts = sqlx::query_as::<_, BookingFacts>(
        "SELECT b.id, b.reference, b.status, b.starts_at, b.party_size, b.customer_id,
                b.customer_name, b.customer_email, b.customer_phone, b.total, b.currency,
                b.confirmed_at, b.paid_at, b.completed_at, b.payment_method,
                (SELECT p.method_reference FROM payments p
                  WHERE p.tenant_id = b.tenant_id AND p.booking_id = b.id
                  ORDER BY p.created_at DESC, p.id DESC LIMIT 1) AS payment_reference,
                b.send_confirmation, b.site_id, s.name AS site_name,
                s.timezone, s.locale, s.address, s.contact_email, s.contact_phone,
                p.name AS product_name, t.name AS business_name, b.tenant_id,
                p.requires_waiver
         FROM bookings b
         JOIN sites s ON s.tenant_id = b.tenant_id AND s.id = b.site_id
         JOIN products p ON p.tenant_id = b.tenant_id AND p.id = b.product_id
         JOIN tenants t ON t.id = b.tenant_id
         WHERE b.tenant_id = $1 AND b.id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(booking)
    .fetch_optional(&mut *w.tx)
    .await?;
    Ok(facts)
}

/// The template variables of a booking (spec Part B 4.7), with `timezone` for
/// `formatDate`.
pub(crate) fn booking_variables(b: &BookingFacts) -> Value {
    let total = Currency::parse(&b.currency).map_or(0.0, |c| to_major(b.total, c));
    json!({
        "customerName": b.customer_name,
        "customerEmail": b.customer_email,
        "customerPhone": b.customer_phone,
        "bookingId": b.id,
        "bookingReference": b.reference,
        "bookingDateTime": b.starts_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "partySize": b.party_size,
        "status": b.status,
        "productName": b.product_name,
        "siteName": b.site_name,
        "siteAddress": b.address.clone().unwrap_or_default(),
        "businessName": b.business_name,
        "supportEmail": b.contact_email.clone().unwrap_or_default(),
        "supportPhone": b.contact_phone.clone().unwrap_or_default(),
        "totalAmount": total,
        "currency": b.currency,
        "confirmedAt": b.confirmed_at.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
        "paymentMethod": b.payment_method,
        "paymentReference": b.payment_reference,
        "timezone": b.timezone,
        "waiverUrl": b.requires_waiver.then(|| format!("/book/{}/waivers/{}", b.tenant_id, b.id)),
    })
}

#[derive(kairos_store_macros::FromRow)]
struct PreferenceRow {
    id: Uuid,
    sms_opt_in: bool,
    marketing_opt_in: bool,
    email_booking_confirmation: bool,
    email_reminders: bool,
    email_follow_up: bool,
    sms_reminders: bool,
    sms_arrival_confirmation: bool,
    language: Option<String>,
}

/// The customer account a message goes to (by id, else by email): its choices and
/// language. A guest has the defaults.
async fn recipient_choices(
    w: &mut Write,
    customer_id: Option<Uuid>,
    email: &str,
) -> Result<(Option<Uuid>, Preferences, Option<String>), StoreError> {
    let columns = "id, sms_opt_in, marketing_opt_in, email_booking_confirmation, \
         email_reminders, email_follow_up, sms_reminders, sms_arrival_confirmation, language";
    let row: Option<PreferenceRow> = match customer_id {
        Some(id) => {
            sqlx::query_as(sql!(
                "SELECT {columns} FROM customers WHERE tenant_id = $1 AND id = $2"
            ))
            .bind(w.tenant.as_str())
            .bind(id)
            .fetch_optional(&mut *w.tx)
            .await?
        }
        None if !email.is_empty() => {
            sqlx::query_as(sql!(
                "SELECT {columns} FROM customers WHERE tenant_id = $1 AND email = $2"
            ))
            .bind(w.tenant.as_str())
            .bind(email.trim().to_lowercase())
            .fetch_optional(&mut *w.tx)
            .await?
        }
        None => None,
    };
    Ok(match row {
        Some(r) => (
            Some(r.id),
            Preferences {
                sms_opt_in: r.sms_opt_in,
                marketing_opt_in: r.marketing_opt_in,
                email_booking_confirmation: r.email_booking_confirmation,
                email_reminders: r.email_reminders,
                email_follow_up: r.email_follow_up,
                sms_reminders: r.sms_reminders,
                sms_arrival_confirmation: r.sms_arrival_confirmation,
            },
            r.language,
        ),
        None => (customer_id, Preferences::default(), None),
    })
}

#[derive(kairos_store_macros::FromRow)]
struct TemplateRow {
    id: Uuid,
    site_id: Option<Uuid>,
    language_code: String,
    template_type: String,
    subject_template: String,
    body_template: String,
}

impl Scoped for TemplateRow {
    fn site_id(&self) -> Option<Uuid> {
        self.site_id
    }
    fn language(&self) -> &str {
        &self.language_code
    }
    fn channel(&self) -> Channel {
        Channel::parse(&self.template_type).unwrap_or(Channel::Email)
    }
}

/// Whom a message goes to, and the variables that describe them.
#[derive(Debug, Clone)]
pub(crate) struct Recipient {
    pub name: String,
    pub email: String,
    pub phone: String,
    pub customer_id: Option<Uuid>,
    pub booking_id: Option<Uuid>,
    /// The site whose templates come first; None: tenant-wide ones.
    pub site_id: Option<Uuid>,
    /// The language when the customer has none.
    pub locale: String,
    pub data: Value,
}

impl Recipient {
    /// The customer of booking `b`, with the booking's variables.
    pub fn of_booking(b: &BookingFacts) -> Recipient {
        Recipient {
            name: b.customer_name.clone(),
            email: b.customer_email.clone(),
            phone: b.customer_phone.clone(),
            customer_id: b.customer_id,
            booking_id: Some(b.id),
            site_id: Some(b.site_id),
            locale: b.locale.clone(),
            data: booking_variables(b),
        }
    }
}

#[derive(kairos_store_macros::FromRow)]
struct CustomerFacts {
    id: Uuid,
    email: String,
    first_name: Option<String>,
    last_name: Option<String>,
    phone: Option<String>,
    business_name: String,
    timezone: String,
}

/// A customer account as a recipient (no booking): its name and contact details, and the
/// tenant's name and time zone.
pub(crate) async fn customer_recipient(
    w: &mut Write,
    customer: Uuid,
) -> Result<Option<Recipient>, StoreError> {
    let row: Option<CustomerFacts> = sqlx::query_as(
        "SELECT c.id, c.email, c.first_name, c.last_name, c.phone, t.name AS business_name,
                t.timezone
         FROM customers c JOIN tenants t ON t.id = c.tenant_id
         WHERE c.tenant_id = $1 AND c.id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(customer)
    .fetch_optional(&mut *w.tx)
    .await?;
    Ok(row.map(|c| {
        let name = [c.first_name.as_deref(), c.last_name.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        let phone = c.phone.unwrap_or_default();
        Recipient {
            data: json!({
                "customerName": name,
                "customerEmail": c.email,
                "customerPhone": phone,
                "businessName": c.business_name,
                "timezone": c.timezone,
            }),
            name,
            email: c.email,
            phone,
            customer_id: Some(c.id),
            booking_id: None,
            site_id: None,
            locale: "en".to_owned(),
        }
    }))
}

/// What became of one channel of a booking message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChannelOutcome {
    Queued(Uuid),
    Withheld(Withheld),
    /// No template of the key for this channel anywhere in the chain.
    NoTemplate,
    /// The template failed to render (it was valid when saved; a helper met odd data).
    RenderFailed,
}

/// How a message is made and sent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Compose<'a> {
    pub template_key: &'a str,
    /// One particular template instead of resolving by key.
    pub template_id: Option<Uuid>,
    pub source: &'static str,
    pub rule_id: Option<Uuid>,
    pub now: Timestamp,
    /// The channels to send by (each where a template resolves).
    pub channels: &'a [Channel],
    /// Variables laid over the recipient's (a message staff wrote, say).
    pub extra: Option<&'a Value>,
    pub priority: Priority,
    pub track_delivery: bool,
    /// The subject and body to render instead of a template (a bulk send staff wrote);
    /// the message is then recorded without a template key.
    pub content: Option<(&'a str, &'a str)>,
    pub bulk_id: Option<Uuid>,
}

impl<'a> Compose<'a> {
    /// A message of `template_key` by every channel, at normal priority, untracked.
    pub fn of(template_key: &'a str, source: &'static str, now: Timestamp) -> Compose<'a> {
        Compose {
            template_key,
            template_id: None,
            source,
            rule_id: None,
            now,
            channels: &[Channel::Email, Channel::Sms],
            extra: None,
            priority: Priority::Normal,
            track_delivery: false,
            content: None,
            bulk_id: None,
        }
    }
}

/// Renders and queues the message `c` describes for booking `b`'s customer.
pub(crate) async fn queue_booking_message(
    w: &mut Write,
    b: &BookingFacts,
    c: Compose<'_>,
) -> Result<Vec<(Channel, ChannelOutcome)>, StoreError> {
    queue_message_to(w, &Recipient::of_booking(b), c).await
}

/// Renders and queues the message `c` describes for `to`: by each of `c.channels` where a
/// template resolves and the customer's choices allow it.
pub(crate) async fn queue_message_to(
    w: &mut Write,
    to: &Recipient,
    c: Compose<'_>,
) -> Result<Vec<(Channel, ChannelOutcome)>, StoreError> {
    let (customer_id, prefs, language) = recipient_choices(w, to.customer_id, &to.email).await?;
    let language = language.unwrap_or_else(|| to.locale.clone());
    let rows: Vec<TemplateRow> = if c.content.is_some() {
        Vec::new()
    } else {
        sqlx::query_as(
            "SELECT id, site_id, language_code, template_type, subject_template, body_template
             FROM message_templates
             WHERE tenant_id = $1 AND template_key = $2 AND (site_id IS NULL OR site_id = $3)",
        )
        .bind(w.tenant.as_str())
        .bind(c.template_key)
        .bind(to.site_id)
        .fetch_all(&mut *w.tx)
        .await?
    };
    let category = catalog::kind(c.template_key)
        .map_or(kairos_domain::messaging::Category::Transactional, |k| {
            k.category
        });
    let known = catalog::variables_of(Some(c.template_key));
    let mut data = to.data.clone();
    if let (Value::Object(map), Some(Value::Object(extra))) = (&mut data, c.extra) {
        map.extend(extra.clone());
    }
    let mut outcomes = Vec::new();
    for &channel in c.channels {
        let template = match (c.content, c.template_id) {
            (Some((subject, body)), _) => Some((subject.to_owned(), body.to_owned())),
            (None, Some(id)) => rows
                .iter()
                .find(|t| t.id == id && t.channel() == channel)
                .map(|t| (t.subject_template.clone(), t.body_template.clone()))
                .or_else(|| {
                    catalog::global_by_id(id)
                        .filter(|d| d.channel == channel)
                        .map(|d| (d.subject.to_owned(), d.body.to_owned()))
                }),
            (None, None) => {
                match catalog::resolve(&rows, c.template_key, &language, channel, to.site_id) {
                    Some(Resolved::Own(t)) => {
                        Some((t.subject_template.clone(), t.body_template.clone()))
                    }
                    Some(Resolved::Global(d)) => Some((d.subject.to_owned(), d.body.to_owned())),
                    None => None,
                }
            }
        };
        let Some((subject, body)) = template else {
            continue;
        };
        let recipient = match channel {
            Channel::Email => to.email.clone(),
            Channel::Sms => to.phone.clone(),
        };
        let verdict = if recipient.trim().is_empty() {
            Err(Withheld::NoRecipient)
        } else {
            allowed(category, channel, &prefs)
        };
        if let Err(why) = verdict {
            outcomes.push((channel, ChannelOutcome::Withheld(why)));
            continue;
        }
        let rendered = match render::render(&subject, &body, channel, &data, &known) {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(booking_id = ?to.booking_id, template_key = c.template_key,
                    error = %e, "a message could not be rendered");
                outcomes.push((channel, ChannelOutcome::RenderFailed));
                continue;
            }
        };
        let id = enqueue(
            w,
            &NewMessage {
                channel,
                template_key: c.content.is_none().then(|| c.template_key.to_owned()),
                source: c.source,
                recipient,
                recipient_name: to.name.clone(),
                customer_id,
                booking_id: to.booking_id,
                rule_id: c.rule_id,
                bulk_id: c.bulk_id,
                subject: rendered.subject,
                body: rendered.body,
                priority: c.priority,
                track_delivery: c.track_delivery,
                send_after: c.now,
            },
        )
        .await?;
        outcomes.push((channel, ChannelOutcome::Queued(id)));
    }
    if outcomes.is_empty() {
        for &channel in c.channels {
            outcomes.push((channel, ChannelOutcome::NoTemplate));
        }
    }
    Ok(outcomes)
}
