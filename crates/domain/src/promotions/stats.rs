//! A promotion's statistics from its use records (`GET /admin/promotions/{id}/stats`).

use chrono::{DateTime, NaiveDate, Utc};
use std::collections::{BTreeMap, HashSet};

/// One live use of a promotion (held or final).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Use {
    pub booking_id: uuid::Uuid,
    /// '' when the booking named no customer.
    pub customer_key: String,
    /// Minor units.
    pub discount: i64,
    pub applied_at: DateTime<Utc>,
}

/// One day of uses (UTC).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Day {
    pub date: NaiveDate,
    pub uses: i64,
    pub discount: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Stats {
    pub uses: i64,
    pub total_discount: i64,
    /// Rounded to the minor unit; 0 without uses.
    pub average_discount: i64,
    /// Distinct customers (accounts, else emails); bookings without either count once each.
    pub unique_customers: i64,
    pub bookings: i64,
    pub first_used_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
    /// The day with the most uses (the earliest of equals).
    pub peak_day: Option<NaiveDate>,
    /// Oldest first.
    pub by_day: Vec<Day>,
}

/// The statistics of `uses`.
pub fn stats(uses: &[Use]) -> Stats {
    let mut days: BTreeMap<NaiveDate, Day> = BTreeMap::new();
    let mut customers = HashSet::new();
    let mut bookings = HashSet::new();
    let mut s = Stats::default();
    for u in uses {
        s.uses += 1;
        s.total_discount += u.discount;
        if u.customer_key.is_empty() {
            customers.insert(format!("booking:{}", u.booking_id));
        } else {
            customers.insert(u.customer_key.clone());
        }
        bookings.insert(u.booking_id);
        s.first_used_at = Some(
            s.first_used_at
                .map_or(u.applied_at, |t| t.min(u.applied_at)),
        );
        s.last_used_at = Some(s.last_used_at.map_or(u.applied_at, |t| t.max(u.applied_at)));
        let date = u.applied_at.date_naive();
        let day = days.entry(date).or_insert(Day {
            date,
            uses: 0,
            discount: 0,
        });
        day.uses += 1;
        day.discount += u.discount;
    }
    s.unique_customers = customers.len() as i64;
    s.bookings = bookings.len() as i64;
    s.average_discount = if s.uses == 0 {
        0
    } else {
        crate::pricing::mul_div_round(s.total_discount, 1, s.uses)
    };
    s.by_day = days.into_values().collect();
    s.peak_day = s
        .by_day
        .iter()
        .fold(None::<&Day>, |best, d| match best {
            Some(b) if b.uses >= d.uses => Some(b),
            _ => Some(d),
        })
        .map(|d| d.date);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s)
            .map(|d| d.with_timezone(&Utc))
            .unwrap_or_default()
    }

    fn u(booking: u128, customer: &str, discount: i64, when: &str) -> Use {
        Use {
            booking_id: uuid::Uuid::from_u128(booking),
            customer_key: customer.into(),
            discount,
            applied_at: at(when),
        }
    }

    #[test]
    fn counts_sums_and_days() {
        let s = stats(&[
            u(1, "email:a@x", 500, "2026-11-01T10:00:00Z"),
            u(2, "email:a@x", 300, "2026-11-02T09:00:00Z"),
            u(3, "customer:7", 300, "2026-11-02T18:00:00Z"),
            u(4, "", 100, "2026-11-03T08:00:00Z"),
        ]);
        assert_eq!(
            (s.uses, s.total_discount, s.average_discount),
            (4, 1200, 300)
        );
        assert_eq!((s.unique_customers, s.bookings), (3, 4));
        assert_eq!(s.first_used_at, Some(at("2026-11-01T10:00:00Z")));
        assert_eq!(s.last_used_at, Some(at("2026-11-03T08:00:00Z")));
        assert_eq!(
            s.peak_day.map(|d| d.to_string()).as_deref(),
            Some("2026-11-02")
        );
        let days: Vec<(String, i64, i64)> = s
            .by_day
            .iter()
            .map(|d| (d.date.to_string(), d.uses, d.discount))
            .collect();
        assert_eq!(
            days,
            [
                ("2026-11-01".into(), 1, 500),
                ("2026-11-02".into(), 2, 600),
                ("2026-11-03".into(), 1, 100)
            ]
        );
    }

    #[test]
    fn no_uses_no_figures() {
        assert_eq!(stats(&[]), Stats::default());
    }
}
