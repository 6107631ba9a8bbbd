//! `GET /api/v1/admin/messaging/analytics` (spec Part B 4.8): how messages fared in a
//! period.
//!
//! Of the messages queued in the period (both ends included): `sent` counts those whose
//! delivery finished (delivered, or failed for good: dead-lettered, even if later
//! skipped), `delivered` those the next hop accepted, `bounced` (email) those that failed
//! for good; `openRate` and `clickRate` are opens and clicks of
//! delivered emails (tracked ones only record them), `deliveryRate` delivered of sent.

use super::error::invalid;
use crate::error::{ApiResult, ShapeBBody};
use crate::extract::{Query, Staff, can, range_bound};
use crate::state::AppState;
use axum::extract::State;
use chrono::{DateTime, Duration, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::messaging::Channel;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// The longest period, in days.
const PERIOD_MAX_DAYS: i64 = 366;

/// Query of the analytics.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AnalyticsQuery {
    /// Start of the period: a timestamp, or a date (the start of that UTC day); default
    /// 30 days before `to`.
    #[param(max_length = 40, example = "2026-11-01")]
    pub from: Option<String>,
    /// End of the period, inclusive: a timestamp, or a date (the whole UTC day); default
    /// now.
    #[param(max_length = 40, example = "2026-11-30")]
    pub to: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Period {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
}

#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmailMetrics {
    pub sent: i64,
    pub delivered: i64,
    pub opened: i64,
    pub clicked: i64,
    pub bounced: i64,
    /// Opened of delivered, 0 to 1.
    pub open_rate: f64,
    /// Clicked of delivered, 0 to 1.
    pub click_rate: f64,
}

#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SmsMetrics {
    pub sent: i64,
    pub delivered: i64,
    /// Delivered of sent, 0 to 1.
    pub delivery_rate: f64,
}

/// One template's figures.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateMetrics {
    /// null: messages written by hand (bulk).
    pub template_key: Option<String>,
    pub queued: i64,
    pub delivered: i64,
    pub opened: i64,
    pub clicked: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Analytics {
    pub period: Period,
    pub email_metrics: EmailMetrics,
    pub sms_metrics: SmsMetrics,
    /// The ten templates with the most messages, most first.
    pub top_templates: Vec<TemplateMetrics>,
}

/// A timestamp, or a date: its first instant (`end`: its last, for an inclusive end).
fn instant(
    errors: &mut FieldErrors,
    field: &str,
    raw: Option<&str>,
    end: bool,
) -> Option<DateTime<Utc>> {
    let bound = range_bound(errors, field, raw, end)?;
    Some(if end {
        bound - Duration::microseconds(1)
    } else {
        bound
    })
}

fn ratio(part: i64, whole: i64) -> f64 {
    if whole <= 0 {
        return 0.0;
    }
    let r = part as f64 / whole as f64;
    (r * 10_000.0).round() / 10_000.0
}

/// Message figures of a period. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/messaging/analytics", tag = "messaging", security(("bearer" = [])),
    params(AnalyticsQuery),
    responses((status = 200, body = Analytics),
        (status = 400, description = "Shape B with errors[]: a bad date, from after to, a period over a year", body = ShapeBBody)))]
pub async fn analytics(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Query(q): Query<AnalyticsQuery>,
) -> ApiResult<axum::Json<Analytics>> {
    let mut errors = FieldErrors::new();
    let to = instant(&mut errors, "to", q.to.as_deref(), true).unwrap_or_else(|| state.now());
    let from =
        instant(&mut errors, "from", q.from.as_deref(), false).unwrap_or(to - Duration::days(30));
    if errors.is_empty() {
        if from >= to {
            errors.add("from", "must be before to");
        } else if to - from > Duration::days(PERIOD_MAX_DAYS) {
            errors.add(
                "from",
                format!("the period is at most {PERIOD_MAX_DAYS} days"),
            );
        }
    }
    errors.finish().map_err(invalid)?;
    let counts = state
        .store
        .message_counts(auth.tenant.id(), from, to)
        .await?;
    let mut email = EmailMetrics::default();
    let mut sms = SmsMetrics::default();
    let mut templates: Vec<TemplateMetrics> = Vec::new();
    for c in counts {
        match c.channel {
            Channel::Email => {
                email.sent += c.delivered + c.failed;
                email.delivered += c.delivered;
                email.opened += c.opened;
                email.clicked += c.clicked;
                email.bounced += c.failed;
            }
            Channel::Sms => {
                sms.sent += c.delivered + c.failed;
                sms.delivered += c.delivered;
            }
        }
        match templates
            .iter_mut()
            .find(|t| t.template_key == c.template_key)
        {
            Some(t) => {
                t.queued += c.queued;
                t.delivered += c.delivered;
                t.opened += c.opened;
                t.clicked += c.clicked;
            }
            None => templates.push(TemplateMetrics {
                template_key: c.template_key,
                queued: c.queued,
                delivered: c.delivered,
                opened: c.opened,
                clicked: c.clicked,
            }),
        }
    }
    email.open_rate = ratio(email.opened, email.delivered);
    email.click_rate = ratio(email.clicked, email.delivered);
    sms.delivery_rate = ratio(sms.delivered, sms.sent);
    templates.sort_by(|a, b| {
        b.queued
            .cmp(&a.queued)
            .then(a.template_key.cmp(&b.template_key))
    });
    templates.truncate(10);
    Ok(axum::Json(Analytics {
        period: Period { from, to },
        email_metrics: email,
        sms_metrics: sms,
        top_templates: templates,
    }))
}
