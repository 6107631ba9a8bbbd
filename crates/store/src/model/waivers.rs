//! Participants and waivers (spec Part B 2.6, 4.5).

use super::Timestamp;
use chrono::NaiveDate;
use kairos_domain::waivers::{ImageFormat, SignatureImage, SignatureMethod};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// One person of a booking's party, as stored in the booking (a JSON array). Medical and
/// dietary details are personal data: only staff with booking access read them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Participant {
    pub id: Uuid,
    pub first_name: String,
    pub last_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_of_birth: Option<NaiveDate>,
    /// The age the booker gave for the booking's day (decides minors before the birth date).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub age_at_booking: Option<u32>,
    /// For example adult or child.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub participant_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dietary_restrictions: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub medical_conditions: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emergency_contact: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub special_requests: Option<String>,
}

impl Participant {
    pub fn full_name(&self) -> String {
        format!("{} {}", self.first_name, self.last_name)
    }
}

/// A participant's details as given (the id is the store's).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParticipantInput {
    pub first_name: String,
    pub last_name: String,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub date_of_birth: Option<NaiveDate>,
    pub age_at_booking: Option<u32>,
    pub participant_type: Option<String>,
    pub dietary_restrictions: Option<String>,
    pub medical_conditions: Option<String>,
    pub emergency_contact: Option<String>,
    pub special_requests: Option<String>,
}

impl ParticipantInput {
    /// The participant with a new id.
    pub fn into_participant(self, id: Uuid) -> Participant {
        Participant {
            id,
            first_name: self.first_name,
            last_name: self.last_name,
            email: self.email,
            phone: self.phone,
            date_of_birth: self.date_of_birth,
            age_at_booking: self.age_at_booking,
            participant_type: self.participant_type,
            dietary_restrictions: self.dietary_restrictions,
            medical_conditions: self.medical_conditions,
            emergency_contact: self.emergency_contact,
            special_requests: self.special_requests,
        }
    }
}

/// Changes to a participant: None keeps a field; `Some(None)` clears an optional one.
#[derive(Debug, Clone, Default)]
pub struct ParticipantPatch {
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub email: Option<Option<String>>,
    pub phone: Option<Option<String>>,
    pub date_of_birth: Option<Option<chrono::NaiveDate>>,
    pub age_at_booking: Option<Option<u32>>,
    pub participant_type: Option<Option<String>>,
    pub dietary_restrictions: Option<Option<String>>,
    pub medical_conditions: Option<Option<String>>,
    pub emergency_contact: Option<Option<String>>,
    pub special_requests: Option<Option<String>>,
}

impl ParticipantPatch {
    pub fn apply(self, p: &mut Participant) {
        fn set<T>(field: &mut T, value: Option<T>) {
            if let Some(v) = value {
                *field = v;
            }
        }
        set(&mut p.first_name, self.first_name);
        set(&mut p.last_name, self.last_name);
        set(&mut p.email, self.email);
        set(&mut p.phone, self.phone);
        set(&mut p.date_of_birth, self.date_of_birth);
        set(&mut p.age_at_booking, self.age_at_booking);
        set(&mut p.participant_type, self.participant_type);
        set(&mut p.dietary_restrictions, self.dietary_restrictions);
        set(&mut p.medical_conditions, self.medical_conditions);
        set(&mut p.emergency_contact, self.emergency_contact);
        set(&mut p.special_requests, self.special_requests);
    }
}

/// A waiver's text in one language at one version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaiverTemplate {
    pub id: Uuid,
    pub name: String,
    pub content: String,
    pub content_hash: String,
    pub version: String,
    pub locale: String,
    pub is_active: bool,
    /// Empty: every product.
    pub product_ids: Vec<Uuid>,
    /// Empty: every site.
    pub site_ids: Vec<Uuid>,
    pub created_by: String,
    pub created_at: Timestamp,
    pub deactivated_at: Option<Timestamp>,
}

impl WaiverTemplate {
    /// Whether it covers a booking of `product` at `site`.
    pub fn covers(&self, product: Uuid, site: Uuid) -> bool {
        (self.product_ids.is_empty() || self.product_ids.contains(&product))
            && (self.site_ids.is_empty() || self.site_ids.contains(&site))
    }
}

/// A template to create; `version` None takes the next whole number after the name and
/// locale's highest.
#[derive(Debug, Clone)]
pub struct NewWaiverTemplate {
    pub name: String,
    pub content: String,
    pub locale: String,
    pub version: Option<String>,
    pub product_ids: Vec<Uuid>,
    pub site_ids: Vec<Uuid>,
}

/// A signed waiver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaiverSignature {
    pub id: Uuid,
    pub booking_id: Uuid,
    /// None: a booking-wide signature.
    pub participant_id: Option<Uuid>,
    pub participant_name: String,
    pub template_id: Option<Uuid>,
    /// The waiver's name (the template's, or what staff called a paper waiver).
    pub template_name: String,
    pub template_version: Option<String>,
    pub content_hash: Option<String>,
    pub method: SignatureMethod,
    pub signed_by_name: String,
    pub signed_by_email: Option<String>,
    pub image: Option<SignatureImage>,
    pub is_minor: bool,
    pub is_guardian_signature: bool,
    pub guardian_relationship: Option<String>,
    pub ip_address: Option<String>,
    pub user_agent: Option<String>,
    pub paper_reference: Option<String>,
    pub notes: Option<String>,
    pub collected_by: Option<String>,
    pub signed_at: Timestamp,
}

impl WaiverSignature {
    pub fn image_format(&self) -> Option<ImageFormat> {
        self.image.as_ref().map(|i| i.format)
    }
}

/// Who signs, and the evidence kept with an online signature.
#[derive(Debug, Clone)]
pub struct SignatureInput {
    pub booking_id: Uuid,
    /// None: the whole booking (the legacy endpoint).
    pub participant_id: Option<Uuid>,
    /// The template signed (None: the one covering the booking, in `locale` if any).
    pub template_id: Option<Uuid>,
    pub locale: Option<String>,
    pub signed_by_name: String,
    pub signed_by_email: String,
    pub image: Option<SignatureImage>,
    pub is_guardian_signature: Option<bool>,
    pub guardian_relationship: Option<String>,
    pub ip_address: Option<String>,
    pub user_agent: Option<String>,
}

/// A paper waiver collected at the desk.
#[derive(Debug, Clone)]
pub struct PaperWaiver {
    pub booking_id: Uuid,
    /// The participant it is for; else found by `participant_name`, else added to the
    /// booking when it has an unnamed place.
    pub participant_id: Option<Uuid>,
    pub participant_name: String,
    /// What the paper was (default: the covering template's name).
    pub waiver_type: Option<String>,
    pub signed_by: String,
    pub notes: Option<String>,
    pub paper_reference: Option<String>,
}

/// A booking as its waivers see it: what it requires and what is signed.
#[derive(Debug, Clone)]
pub struct BookingWaivers {
    pub booking_id: Uuid,
    pub reference: String,
    pub status: kairos_domain::bookings::BookingStatus,
    pub product_id: Uuid,
    pub site_id: Uuid,
    pub requires_waiver: bool,
    pub check_in: kairos_domain::waivers::WaiverCheckIn,
    pub party_size: i32,
    pub starts_at: Timestamp,
    /// The booking's date in its site's time zone.
    pub booking_day: NaiveDate,
    /// The site's time zone (IANA name).
    pub timezone: String,
    pub site_locale: String,
    pub customer_name: String,
    pub customer_email: String,
    pub participants: Vec<Participant>,
    pub signatures: Vec<WaiverSignature>,
    /// Active templates covering the booking.
    pub templates: Vec<WaiverTemplate>,
    /// Last signing link sent by staff or by a reminder, per subject (participant id or
    /// `booking`).
    pub reminders: Vec<(String, Timestamp)>,
}

/// Why a waiver operation was refused.
#[derive(Debug, thiserror::Error)]
pub enum WaiverError {
    #[error("booking not found")]
    BookingNotFound,
    #[error("participant not found")]
    ParticipantNotFound,
    /// No such template or signature, or no active template covers the booking.
    #[error("waiver not found")]
    WaiverNotFound,
    #[error("template inactive")]
    TemplateInactive,
    #[error("already signed")]
    AlreadySigned(Box<WaiverSignature>),
    /// The version exists with other text.
    #[error("version exists")]
    VersionExists,
    /// The template does not cover the booking's product or site.
    #[error("template does not cover the booking")]
    NotCovered,
    /// The booking is not one a waiver can be signed for (cancelled, expired).
    #[error("booking closed")]
    BookingClosed,
    /// Every place of the party is named.
    #[error("party full")]
    PartyFull,
    /// A signing link went to the same person less than a minute ago.
    #[error("link just sent")]
    JustSent { to: String },
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

impl From<sqlx::Error> for WaiverError {
    fn from(e: sqlx::Error) -> Self {
        WaiverError::Store(e.into())
    }
}

impl BookingWaivers {
    /// The booking-wide (legacy) signature, if any.
    pub fn booking_signature(&self) -> Option<&WaiverSignature> {
        self.signatures.iter().find(|s| s.participant_id.is_none())
    }

    /// The signature of a listed participant, if any.
    pub fn signature_of(&self, participant: Uuid) -> Option<&WaiverSignature> {
        self.signatures
            .iter()
            .find(|s| s.participant_id == Some(participant))
    }

    /// Places (people of the party) whose waiver is not in: the unnamed places plus the
    /// named participants without a signature. A whole-booking (legacy) signature is the
    /// booker's acceptance for the booking; it signs for no one in particular.
    pub fn unsigned_places(&self) -> u32 {
        let signed = self
            .participants
            .iter()
            .filter(|p| self.signature_of(p.id).is_some())
            .count();
        let party = usize::try_from(self.party_size).unwrap_or(0);
        u32::try_from(party.saturating_sub(signed)).unwrap_or(u32::MAX)
    }

    /// Waivers the booking still needs: its unsigned places when its product requires
    /// waivers, else none.
    pub fn missing(&self) -> u32 {
        if self.requires_waiver {
            self.unsigned_places()
        } else {
            0
        }
    }

    /// Whether a listed participant is a minor on the booking's day.
    pub fn is_minor(&self, p: &Participant) -> bool {
        kairos_domain::waivers::is_minor(p.age_at_booking, p.date_of_birth, self.booking_day)
    }

    /// The active template a signer of this booking reads: in `locale` when one is, else
    /// in the site's locale, else in the same language, else the newest.
    pub fn template_for(&self, locale: Option<&str>) -> Option<&WaiverTemplate> {
        let language = |l: &str| {
            l.split(['-', '_'])
                .next()
                .unwrap_or("")
                .to_ascii_lowercase()
        };
        let wanted: Vec<&str> = locale
            .into_iter()
            .chain([self.site_locale.as_str()])
            .collect();
        wanted
            .iter()
            .find_map(|l| {
                self.templates
                    .iter()
                    .find(|t| t.locale.eq_ignore_ascii_case(l))
            })
            .or_else(|| {
                wanted.iter().find_map(|l| {
                    self.templates
                        .iter()
                        .find(|t| language(&t.locale) == language(l))
                })
            })
            .or_else(|| self.templates.first())
    }
}

/// Which signatures to list.
#[derive(Debug, Clone, Default)]
pub struct SignatureFilter {
    pub booking_id: Option<Uuid>,
    pub template_id: Option<Uuid>,
    /// Signed at or after.
    pub signed_after: Option<Timestamp>,
    /// Signed before.
    pub signed_before: Option<Timestamp>,
}
