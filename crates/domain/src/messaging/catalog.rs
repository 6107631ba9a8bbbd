//! The kinds of message the product sends (template keys), the variables each may use,
//! and the global defaults in English that ship with the product.

use super::{Category, Channel};
use uuid::Uuid;

/// The variables every booking message can use (spec Part B 4.7).
pub const BOOKING_VARIABLES: &[&str] = &[
    "customerName",
    "customerEmail",
    "customerPhone",
    "bookingId",
    "bookingReference",
    "bookingDateTime",
    "partySize",
    "status",
    "productName",
    "siteName",
    "siteAddress",
    "businessName",
    "supportEmail",
    "supportPhone",
    "totalAmount",
    "currency",
    "confirmedAt",
    "paymentMethod",
    "paymentReference",
    "waiverUrl",
];

/// Extra variables of the gift card delivery.
const GIFT_CARD_VARIABLES: &[&str] = &[
    "recipientName",
    "senderName",
    "personalMessage",
    "voucherCode",
    "voucherExpiresAt",
];

/// Extra variable of the messages staff send by hand: their own words.
const STAFF_VARIABLES: &[&str] = &["message"];

/// Extra variables of the fee notice (the amount in major units, as `totalAmount`).
const FEE_VARIABLES: &[&str] = &["feeAmount", "feeType", "feeReason"];

/// Extra variables of a booking group's invoice: `invoiceLines` is a list of
/// {bookingReference, productName, bookingDateTime, partySize, amount, taxAmount};
/// `totalAmount` is the group's.
const GROUP_INVOICE_VARIABLES: &[&str] = &[
    "invoiceNumber",
    "invoiceDate",
    "dueDate",
    "groupReference",
    "invoiceLines",
    "taxTotal",
];

/// Extra variables of the waitlist offer.
const WAITLIST_VARIABLES: &[&str] = &["offerExpiresAt", "offerUrl"];

/// A kind of message: its key, what it is for, and its variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TemplateKind {
    pub key: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    /// Which of the customer's choices it answers to.
    pub category: Category,
    /// Variables besides [`BOOKING_VARIABLES`].
    pub extra_variables: &'static [&'static str],
}

impl TemplateKind {
    /// Every variable a template of this kind may use.
    pub fn variables(&self) -> Vec<&'static str> {
        BOOKING_VARIABLES
            .iter()
            .chain(self.extra_variables)
            .copied()
            .collect()
    }
}

/// Every kind the product sends, in the order the types list shows them.
pub const KINDS: &[TemplateKind] = &[
    TemplateKind {
        key: "booking_confirmation",
        name: "Booking confirmation",
        description: "Sent when a booking is made (on creation).",
        category: Category::Transactional,
        extra_variables: &[],
    },
    TemplateKind {
        key: "payment_receipt",
        name: "Payment receipt",
        description: "Sent when a payment is received.",
        category: Category::Transactional,
        extra_variables: &[],
    },
    TemplateKind {
        key: "waiver_reminder",
        name: "Waiver reminder",
        description: "Sent 7, 2 and 1 days before, and on the day, while a waiver is unsigned.",
        category: Category::Transactional,
        extra_variables: &["participantName"],
    },
    TemplateKind {
        key: "pre_arrival_reminder",
        name: "Pre-arrival reminder",
        description: "Sent 24 hours before the booking, by email and SMS.",
        category: Category::Reminder,
        extra_variables: &[],
    },
    TemplateKind {
        key: "arrival_confirmation",
        name: "Arrival confirmation",
        description: "Sent by SMS on the morning of the booking's day.",
        category: Category::Arrival,
        extra_variables: &[],
    },
    TemplateKind {
        key: "post_visit_follow_up",
        name: "Post-visit follow-up",
        description: "Sent 24 hours after the booking is completed.",
        category: Category::FollowUp,
        extra_variables: &[],
    },
    TemplateKind {
        key: "feedback_request",
        name: "Feedback request",
        description: "Sent 3 days after the booking is completed.",
        category: Category::FollowUp,
        extra_variables: &[],
    },
    TemplateKind {
        key: "cancellation",
        name: "Cancellation",
        description: "Sent when a booking is cancelled.",
        category: Category::Transactional,
        extra_variables: &[],
    },
    TemplateKind {
        key: "group_invoice",
        name: "Group invoice",
        description: "Sent when staff confirm a booking group by invoice: its number, a line per booking with tax, the total and the due date.",
        category: Category::Transactional,
        extra_variables: GROUP_INVOICE_VARIABLES,
    },
    TemplateKind {
        key: "fee_notice",
        name: "Fee notice",
        description: "Sent when staff apply a fee to a booking (a no-show, damage) and ask to tell the customer.",
        category: Category::Transactional,
        extra_variables: FEE_VARIABLES,
    },
    TemplateKind {
        key: "welcome",
        name: "Welcome",
        description: "Sent when a customer creates an account.",
        category: Category::Transactional,
        extra_variables: &[],
    },
    TemplateKind {
        key: "gift_card_delivery",
        name: "Gift card delivery",
        description: "Sent to the recipient of a gift card on its delivery date.",
        category: Category::Transactional,
        extra_variables: GIFT_CARD_VARIABLES,
    },
    TemplateKind {
        key: "waitlist_offer",
        name: "Waitlist offer",
        description: "Sent when a place frees up for someone on the waitlist.",
        category: Category::Transactional,
        extra_variables: WAITLIST_VARIABLES,
    },
    TemplateKind {
        key: "booking_reminder",
        name: "Booking reminder (sent by staff)",
        description: "A reminder of a booking that staff send by hand.",
        category: Category::Transactional,
        extra_variables: STAFF_VARIABLES,
    },
    TemplateKind {
        key: "booking_update",
        name: "Booking update (sent by staff)",
        description: "News about a booking: a change of plan, a question.",
        category: Category::Transactional,
        extra_variables: STAFF_VARIABLES,
    },
    TemplateKind {
        key: "special_offer",
        name: "Special offer",
        description: "A marketing offer; only to customers who opted in to marketing.",
        category: Category::Marketing,
        extra_variables: STAFF_VARIABLES,
    },
    TemplateKind {
        key: "follow_up",
        name: "Follow-up (sent by staff)",
        description: "A personal follow-up after a visit.",
        category: Category::FollowUp,
        extra_variables: STAFF_VARIABLES,
    },
    TemplateKind {
        key: "issue_resolution",
        name: "Issue resolution",
        description: "How a reported issue was resolved.",
        category: Category::Transactional,
        extra_variables: STAFF_VARIABLES,
    },
];

/// The kind with `key`.
pub fn kind(key: &str) -> Option<&'static TemplateKind> {
    KINDS.iter().find(|k| k.key == key)
}

/// A global default template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultTemplate {
    pub key: &'static str,
    pub channel: Channel,
    pub subject: &'static str,
    pub body: &'static str,
}

/// The defaults that ship with the product, in English.
pub fn defaults() -> Vec<DefaultTemplate> {
    let email = |key, subject, body| DefaultTemplate {
        key,
        channel: Channel::Email,
        subject,
        body,
    };
    let sms = |key, body| DefaultTemplate {
        key,
        channel: Channel::Sms,
        subject: "",
        body,
    };
    vec![
        email(
            "booking_confirmation",
            "Your booking {{bookingReference}} at {{siteName}}",
            "<p>Hello {{customerName}},</p>\n<p>Thank you for booking {{productName}} at {{siteName}} on {{formatDate bookingDateTime \"MMMM d, yyyy\"}} at {{formatDate bookingDateTime \"HH:mm\"}} for {{partySize}}.</p>\n<p>Your reference is <strong>{{bookingReference}}</strong>. Total: {{formatCurrency totalAmount currency}}.</p>\n{{#if siteAddress}}<p>Find us at {{siteAddress}}.</p>\n{{/if}}{{#if waiverUrl}}<p>Everyone taking part needs a signed waiver: <a href=\"{{waiverUrl}}\">sign the waivers online</a> before your visit.</p>\n{{/if}}<p>Questions? {{#if supportEmail}}Write to {{supportEmail}}{{else}}Reply to this email{{/if}}.</p>\n<p>{{businessName}}</p>",
        ),
        email(
            "payment_receipt",
            "Receipt for booking {{bookingReference}}",
            "<p>Hello {{customerName}},</p>\n<p>We received {{formatCurrency totalAmount currency}}{{#if paymentMethod}} by {{paymentMethod}}{{/if}} for {{productName}} on {{formatDate bookingDateTime \"MMMM d, yyyy\"}}.</p>\n{{#if paymentReference}}<p>Payment reference: {{paymentReference}}</p>\n{{/if}}<p>{{businessName}}</p>",
        ),
        email(
            "waiver_reminder",
            "Please sign your waiver for {{formatDate bookingDateTime \"MMMM d\"}}",
            "<p>Hello {{#if participantName}}{{participantName}}{{else}}{{customerName}}{{/if}},</p>\n<p>Before your visit to {{siteName}} on {{formatDate bookingDateTime \"MMMM d, yyyy\"}} at {{formatDate bookingDateTime \"h:mm a\"}}, everyone in your party needs a signed waiver.</p>\n{{#if waiverUrl}}<p><a href=\"{{waiverUrl}}\">Sign the waiver online</a></p>\n{{/if}}<p>Booking {{bookingReference}}</p>\n<p>{{businessName}}</p>",
        ),
        email(
            "pre_arrival_reminder",
            "See you tomorrow at {{siteName}}",
            "<p>Hello {{customerName}},</p>\n<p>A reminder of {{productName}} on {{formatDate bookingDateTime \"MMMM d, yyyy\"}} at {{formatDate bookingDateTime \"HH:mm\"}} for {{partySize}}.</p>\n{{#if siteAddress}}<p>{{siteAddress}}</p>\n{{/if}}<p>Booking {{bookingReference}}</p>\n<p>{{businessName}}</p>",
        ),
        sms(
            "pre_arrival_reminder",
            "{{siteName}}: see you on {{formatDate bookingDateTime \"dd/MM/yyyy\"}} at {{formatDate bookingDateTime \"HH:mm\"}} ({{productName}}, {{partySize}}). Ref {{bookingReference}}",
        ),
        sms(
            "arrival_confirmation",
            "{{siteName}}: today at {{formatDate bookingDateTime \"HH:mm\"}}, {{productName}} for {{partySize}}. Ref {{bookingReference}}",
        ),
        email(
            "post_visit_follow_up",
            "Thank you for visiting {{siteName}}",
            "<p>Hello {{customerName}},</p>\n<p>Thank you for joining us for {{productName}}. We hope to see you again soon.</p>\n<p>{{businessName}}</p>",
        ),
        email(
            "feedback_request",
            "How was {{productName}}?",
            "<p>Hello {{customerName}},</p>\n<p>How was your visit to {{siteName}} on {{formatDate bookingDateTime \"MMMM d\"}}? A few words from you help us and other visitors.</p>\n<p>{{businessName}}</p>",
        ),
        email(
            "cancellation",
            "Booking {{bookingReference}} is cancelled",
            "<p>Hello {{customerName}},</p>\n<p>Your booking {{bookingReference}} for {{productName}} on {{formatDate bookingDateTime \"MMMM d, yyyy\"}} at {{formatDate bookingDateTime \"HH:mm\"}} is cancelled.</p>\n<p>{{businessName}}</p>",
        ),
        email(
            "group_invoice",
            "Invoice {{invoiceNumber}} from {{businessName}}",
            "<p>Hello {{customerName}},</p>\n<p>Your group booking {{groupReference}} is confirmed. Here is its invoice.</p>\n<p><strong>Invoice {{invoiceNumber}}</strong><br>Date: {{formatDate invoiceDate \"MMMM d, yyyy\"}}<br>Due: {{formatDate dueDate \"MMMM d, yyyy\"}}</p>\n<table>\n<tr><th>Activity</th><th>When</th><th>People</th><th>Tax</th><th>Amount</th></tr>\n{{#each invoiceLines}}<tr><td>{{this.productName}} ({{this.bookingReference}})</td><td>{{formatDate this.bookingDateTime \"dd/MM/yyyy HH:mm\"}}</td><td>{{this.partySize}}</td><td>{{formatCurrency this.taxAmount ../currency}}</td><td>{{formatCurrency this.amount ../currency}}</td></tr>\n{{/each}}</table>\n<p>Tax: {{formatCurrency taxTotal currency}}<br><strong>Total: {{formatCurrency totalAmount currency}}</strong></p>\n<p>{{businessName}}{{#if siteAddress}}<br>{{siteAddress}}{{/if}}{{#if supportEmail}}<br>{{supportEmail}}{{/if}}{{#if supportPhone}}<br>{{supportPhone}}{{/if}}</p>",
        ),
        email(
            "fee_notice",
            "A fee on your booking {{bookingReference}}",
            "<p>Hello {{customerName}},</p>\n<p>A fee of {{formatCurrency feeAmount currency}} ({{feeType}}) was applied to your booking {{bookingReference}} for {{productName}} on {{formatDate bookingDateTime \"MMMM d, yyyy\"}}.</p>\n{{#if feeReason}}<p>{{feeReason}}</p>\n{{/if}}<p>Questions? Reply to this message or contact {{supportEmail}}.</p>\n<p>{{businessName}}</p>",
        ),
        email(
            "welcome",
            "Welcome to {{businessName}}",
            "<p>Hello {{customerName}},</p>\n<p>Your account is ready: your bookings and their details are now in one place.</p>\n<p>{{businessName}}</p>",
        ),
        email(
            "gift_card_delivery",
            "{{#if senderName}}{{senderName}} sent you{{else}}You received{{/if}} a gift card",
            "<p>Hello {{recipientName}},</p>\n{{#if personalMessage}}<blockquote>{{personalMessage}}</blockquote>\n{{/if}}<p>Your gift card code is <strong>{{voucherCode}}</strong>, worth {{formatCurrency totalAmount currency}}{{#if voucherExpiresAt}}, valid until {{formatDate voucherExpiresAt \"MMMM d, yyyy\"}}{{/if}}.</p>\n<p>{{businessName}}</p>",
        ),
        email(
            "waitlist_offer",
            "A place is free: {{productName}} on {{formatDate bookingDateTime \"MMMM d\"}}",
            "<p>Hello {{customerName}},</p>\n<p>A place for {{partySize}} is free for {{productName}} on {{formatDate bookingDateTime \"MMMM d, yyyy\"}} at {{formatDate bookingDateTime \"HH:mm\"}}. It is held for you until {{formatDate offerExpiresAt \"HH:mm\"}}.</p>\n{{#if offerUrl}}<p><a href=\"{{offerUrl}}\">Book it</a></p>\n{{/if}}<p>{{businessName}}</p>",
        ),
        email(
            "booking_reminder",
            "Your booking {{bookingReference}} on {{formatDate bookingDateTime \"MMMM d\"}}",
            "<p>Hello {{customerName}},</p>\n<p>{{message}}</p>\n{{#if bookingReference}}<p>{{productName}} on {{formatDate bookingDateTime \"MMMM d, yyyy\"}} at {{formatDate bookingDateTime \"HH:mm\"}} for {{partySize}}, booking {{bookingReference}}.</p>\n{{/if}}<p>{{businessName}}</p>",
        ),
        sms(
            "booking_reminder",
            "{{businessName}}: {{message}}{{#if bookingReference}} (ref {{bookingReference}}){{/if}}",
        ),
        email(
            "booking_update",
            "News about your booking {{bookingReference}}",
            "<p>Hello {{customerName}},</p>\n<p>{{message}}</p>\n<p>{{businessName}}</p>",
        ),
        sms("booking_update", "{{businessName}}: {{message}}"),
        email(
            "special_offer",
            "An offer from {{businessName}}",
            "<p>Hello {{customerName}},</p>\n<p>{{message}}</p>\n<p>{{businessName}}</p>",
        ),
        email(
            "follow_up",
            "Following up on your visit",
            "<p>Hello {{customerName}},</p>\n<p>{{message}}</p>\n<p>{{businessName}}</p>",
        ),
        email(
            "issue_resolution",
            "About the issue you reported",
            "<p>Hello {{customerName}},</p>\n<p>{{message}}</p>\n<p>{{businessName}}</p>",
        ),
    ]
}

/// Values for every variable, for previews and for checking that a template renders.
pub fn sample_data() -> serde_json::Value {
    serde_json::json!({
        "customerName": "Alex Example",
        "customerEmail": "alex@example.com",
        "customerPhone": "+358401234567",
        "bookingId": "0190f4c2-7b1e-7a3c-9d2e-5f6a7b8c9d0e",
        "bookingReference": "KX7P2M",
        "bookingDateTime": "2026-07-04T15:00:00Z",
        "partySize": 4,
        "status": "confirmed",
        "productName": "The Vault (escape room)",
        "siteName": "Downtown",
        "siteAddress": "1 Example Street",
        "businessName": "Example Adventures",
        "supportEmail": "help@example.com",
        "supportPhone": "+358 9 123 456",
        "totalAmount": 120.0,
        "currency": "EUR",
        "confirmedAt": "2026-06-20T09:30:00Z",
        "paymentMethod": "card",
        "paymentReference": "pi_3Q0example",
        "recipientName": "Sam Example",
        "senderName": "Alex",
        "personalMessage": "Happy birthday!",
        "voucherCode": "GIFT-ABCD-EFGH",
        "voucherExpiresAt": "2027-06-20T00:00:00Z",
        "offerExpiresAt": "2026-07-03T16:00:00Z",
        "offerUrl": "https://example.com/offer",
        "waiverUrl": "https://example.com/book/acme/waivers/7b1c",
        "participantName": "Robin Example",
        "message": "Your message here.",
        "timezone": "Europe/Helsinki",
    })
}

/// The variables a template of `key` may use: its kind's, or the booking variables for a
/// key the product does not send itself.
pub fn variables_of(key: Option<&str>) -> Vec<&'static str> {
    key.and_then(kind)
        .map_or_else(|| BOOKING_VARIABLES.to_vec(), |k| k.variables())
}

/// The namespace of the global defaults' ids (UUIDv5 of `key/language/type`).
const GLOBAL_NAMESPACE: Uuid = Uuid::from_u128(0x6b61_6972_6f73_4d53_4754_454d_504c_0001);

/// The language of the global defaults and the last step of every resolution.
pub const FALLBACK_LANGUAGE: &str = "en";

impl DefaultTemplate {
    /// The default's id: the same in every version and on every instance.
    pub fn id(&self) -> Uuid {
        Uuid::new_v5(
            &GLOBAL_NAMESPACE,
            format!("{}/{FALLBACK_LANGUAGE}/{}", self.key, self.channel).as_bytes(),
        )
    }
}

/// The global default with `id`.
pub fn global_by_id(id: Uuid) -> Option<DefaultTemplate> {
    defaults().into_iter().find(|d| d.id() == id)
}

/// The global default for `key` by `channel`.
pub fn global(key: &str, channel: Channel) -> Option<DefaultTemplate> {
    defaults()
        .into_iter()
        .find(|d| d.key == key && d.channel == channel)
}

/// Where a template is defined, as resolution sees it.
pub trait Scoped {
    fn site_id(&self) -> Option<Uuid>;
    fn language(&self) -> &str;
    fn channel(&self) -> Channel;
}

/// A resolved template: a tenant's own or the global default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolved<'a, T> {
    Own(&'a T),
    Global(DefaultTemplate),
}

/// The template a message of `key` uses (spec Part B 4.7): among the tenant's
/// `templates` of that key, the site's in `language`, else the tenant-wide one, else the
/// global default; then the same in English.
pub fn resolve<'a, T: Scoped>(
    templates: &'a [T],
    key: &str,
    language: &str,
    channel: Channel,
    site: Option<Uuid>,
) -> Option<Resolved<'a, T>> {
    let mut languages = vec![language];
    if language != FALLBACK_LANGUAGE {
        languages.push(FALLBACK_LANGUAGE);
    }
    for lang in languages {
        let in_lang = |t: &&T| t.language() == lang && t.channel() == channel;
        if let Some(site) = site
            && let Some(t) = templates
                .iter()
                .filter(in_lang)
                .find(|t| t.site_id() == Some(site))
        {
            return Some(Resolved::Own(t));
        }
        if let Some(t) = templates
            .iter()
            .filter(in_lang)
            .find(|t| t.site_id().is_none())
        {
            return Some(Resolved::Own(t));
        }
        if lang == FALLBACK_LANGUAGE
            && let Some(d) = global(key, channel)
        {
            return Some(Resolved::Global(d));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_an_english_default_and_every_default_a_kind() {
        let defaults = defaults();
        for k in KINDS {
            assert!(defaults.iter().any(|d| d.key == k.key), "{}", k.key);
        }
        for d in &defaults {
            assert!(kind(d.key).is_some(), "{}", d.key);
        }
        assert!(kind("nope").is_none());
        assert!(kind("gift_card_delivery").is_some_and(|k| k.variables().contains(&"voucherCode")));
    }

    struct T(Option<Uuid>, &'static str, Channel, u8);

    impl Scoped for T {
        fn site_id(&self) -> Option<Uuid> {
            self.0
        }
        fn language(&self) -> &str {
            self.1
        }
        fn channel(&self) -> Channel {
            self.2
        }
    }

    fn which(r: Option<Resolved<'_, T>>) -> String {
        match r {
            Some(Resolved::Own(t)) => format!("own {}", t.3),
            Some(Resolved::Global(d)) => format!("global {}", d.key),
            None => "none".into(),
        }
    }

    #[test]
    fn resolution_goes_site_tenant_global_then_english() {
        let site = Uuid::from_u128(7);
        let other = Uuid::from_u128(8);
        let key = "booking_confirmation";
        let all = [
            T(Some(site), "fi", Channel::Email, 1),
            T(None, "fi", Channel::Email, 2),
            T(None, "sv", Channel::Email, 3),
            T(Some(other), "en", Channel::Email, 4),
        ];
        let r = |lang, site| which(resolve(&all, key, lang, Channel::Email, site));
        assert_eq!(r("fi", Some(site)), "own 1");
        assert_eq!(r("fi", Some(other)), "own 2");
        assert_eq!(r("fi", None), "own 2");
        assert_eq!(r("sv", Some(site)), "own 3");
        assert_eq!(r("de", Some(other)), "own 4", "English at the site");
        assert_eq!(r("de", Some(site)), "global booking_confirmation");
        assert_eq!(r("en", None), "global booking_confirmation");
        assert_eq!(
            which(resolve(&all, key, "fi", Channel::Sms, Some(site))),
            "none",
            "no SMS confirmation anywhere"
        );
        assert_eq!(
            which(resolve(&all, "custom_key", "en", Channel::Email, None)),
            "none"
        );
    }

    #[test]
    fn global_ids_are_stable_and_distinct() {
        let ids: std::collections::BTreeSet<_> = defaults().iter().map(|d| d.id()).collect();
        assert_eq!(ids.len(), defaults().len());
        let d = global("pre_arrival_reminder", Channel::Sms).unwrap();
        assert_eq!(global_by_id(d.id()), Some(d));
    }
}
