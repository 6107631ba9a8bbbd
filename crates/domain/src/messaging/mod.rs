//! Messages to customers (spec Part B 2.7, 4.7, 4.8): the kinds of message the product
//! sends with their variables and English defaults ([`catalog`]), rendering a template
//! with handlebars ([`render`]), automation rules ([`automation`]), and whose choices
//! allow which message ([`allowed`]); bulk sends to a date range's bookings ([`bulk`]).

pub mod automation;
pub mod bulk;
pub mod catalog;
pub mod render;

crate::text_enum! {
    /// How a template is delivered.
    pub enum Channel {
        Email = "email",
        Sms = "sms",
    }
}

crate::text_enum! {
    /// Where a message is.
    pub enum MessageStatus {
        /// Waiting for its send time or its next attempt.
        Queued = "queued",
        /// Accepted by the next hop (the mail server, the SMS provider, the message file).
        Delivered = "delivered",
        /// Every attempt failed: it is in the dead-letter queue.
        Failed = "failed",
        /// Skipped from the dead-letter queue.
        Canceled = "canceled",
    }
}

crate::text_enum! {
    /// How urgent a message is: high ones are sent first.
    pub enum Priority {
        Low = "low",
        Normal = "normal",
        High = "high",
    }
}

/// Delivery attempts of a message before it goes to the dead-letter queue.
pub const MAX_ATTEMPTS: i32 = 5;

/// The wait before attempt `attempt + 1` after attempt `attempt` failed: `base`, doubling
/// each time, at most an hour.
pub fn backoff(attempt: i32, base: std::time::Duration) -> std::time::Duration {
    let doublings = u32::try_from(attempt.saturating_sub(1).clamp(0, 16)).unwrap_or(0);
    base.saturating_mul(1 << doublings)
        .min(std::time::Duration::from_secs(3600))
}

/// Which of a customer's choices a message answers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    /// About a booking or purchase the customer made (confirmation, receipt, cancellation,
    /// waiver, gift card): always by email.
    Transactional,
    /// Reminders before a visit.
    Reminder,
    /// The arrival confirmation on the day.
    Arrival,
    /// Follow-ups and feedback requests after a visit.
    FollowUp,
    /// Offers: only with marketing opt-in.
    Marketing,
}

/// A customer's message choices (spec Part B 4.8). A recipient who is not a customer
/// account has [`Preferences::default`]: email yes, SMS and marketing no.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preferences {
    pub sms_opt_in: bool,
    pub marketing_opt_in: bool,
    pub email_booking_confirmation: bool,
    pub email_reminders: bool,
    pub email_follow_up: bool,
    pub sms_reminders: bool,
    pub sms_arrival_confirmation: bool,
}

impl Default for Preferences {
    fn default() -> Self {
        Self {
            sms_opt_in: false,
            marketing_opt_in: false,
            email_booking_confirmation: true,
            email_reminders: true,
            email_follow_up: true,
            sms_reminders: true,
            sms_arrival_confirmation: true,
        }
    }
}

/// Why a message is not sent to someone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Withheld {
    /// No SMS without sms opt-in.
    NoSmsOptIn,
    /// No marketing without marketing opt-in.
    NoMarketingOptIn,
    /// The customer switched this kind of message off.
    OptedOut,
    /// No address or phone number to send to.
    NoRecipient,
}

impl Withheld {
    pub fn as_str(self) -> &'static str {
        match self {
            Withheld::NoSmsOptIn => "no_sms_opt_in",
            Withheld::NoMarketingOptIn => "no_marketing_opt_in",
            Withheld::OptedOut => "opted_out",
            Withheld::NoRecipient => "no_recipient",
        }
    }
}

/// Whether a message of `category` may go to someone with `prefs` by `channel`.
/// Transactional email always goes (a booking confirmation is part of the booking, so
/// `email_booking_confirmation` is kept but does not stop it); SMS needs sms opt-in and
/// marketing needs marketing opt-in, whatever else is chosen.
pub fn allowed(category: Category, channel: Channel, prefs: &Preferences) -> Result<(), Withheld> {
    if channel == Channel::Sms && !prefs.sms_opt_in {
        return Err(Withheld::NoSmsOptIn);
    }
    if category == Category::Marketing && !prefs.marketing_opt_in {
        return Err(Withheld::NoMarketingOptIn);
    }
    let wanted = match (category, channel) {
        (Category::Transactional | Category::Marketing, _) => true,
        (Category::Reminder, Channel::Email) => prefs.email_reminders,
        (Category::Reminder, Channel::Sms) => prefs.sms_reminders,
        (Category::Arrival, Channel::Email) => prefs.email_reminders,
        (Category::Arrival, Channel::Sms) => prefs.sms_arrival_confirmation,
        (Category::FollowUp, Channel::Email) => prefs.email_follow_up,
        (Category::FollowUp, Channel::Sms) => prefs.sms_reminders,
    };
    if wanted {
        Ok(())
    } else {
        Err(Withheld::OptedOut)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_an_hour() {
        let base = std::time::Duration::from_secs(30);
        let waits: Vec<u64> = (1..=5).map(|a| backoff(a, base).as_secs()).collect();
        assert_eq!(waits, [30, 60, 120, 240, 480]);
        assert_eq!(backoff(40, base).as_secs(), 3600);
    }

    #[test]
    fn transactional_email_always_goes() {
        let prefs = Preferences {
            email_booking_confirmation: false,
            email_reminders: false,
            email_follow_up: false,
            ..Preferences::default()
        };
        assert_eq!(
            allowed(Category::Transactional, Channel::Email, &prefs),
            Ok(())
        );
        assert_eq!(
            allowed(Category::Reminder, Channel::Email, &prefs),
            Err(Withheld::OptedOut)
        );
        assert_eq!(
            allowed(Category::FollowUp, Channel::Email, &prefs),
            Err(Withheld::OptedOut)
        );
    }

    #[test]
    fn sms_needs_opt_in_and_marketing_needs_opt_in() {
        let mut prefs = Preferences::default();
        assert_eq!(
            allowed(Category::Transactional, Channel::Sms, &prefs),
            Err(Withheld::NoSmsOptIn)
        );
        assert_eq!(
            allowed(Category::Marketing, Channel::Email, &prefs),
            Err(Withheld::NoMarketingOptIn)
        );
        prefs.sms_opt_in = true;
        prefs.marketing_opt_in = true;
        assert_eq!(allowed(Category::Arrival, Channel::Sms, &prefs), Ok(()));
        assert_eq!(allowed(Category::Marketing, Channel::Email, &prefs), Ok(()));
        prefs.sms_arrival_confirmation = false;
        assert_eq!(
            allowed(Category::Arrival, Channel::Sms, &prefs),
            Err(Withheld::OptedOut)
        );
    }
}
