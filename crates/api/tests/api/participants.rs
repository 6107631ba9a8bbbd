//! A booking's participants: added, changed and removed one at a time by the booking's
//! token, its customer or staff; never more than the party; medical and dietary details
//! shown to staff only and kept out of the audit log.

use super::waivers::{booking, venue};
use kairos_domain::TenantId;
use kairos_testkit::{TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

async fn add(
    app: &TestApp,
    t: &TenantFixture,
    b: &str,
    token: Option<&str>,
    body: Value,
) -> TestResponse {
    let req = app
        .post(&format!("/api/v1/bookings/{b}/participants"))
        .tenant(&t.id)
        .json(body);
    match token {
        Some(tok) => req.header("x-booking-token", tok),
        None => req.token(&t.owner_token),
    }
    .send()
    .await
}

#[tokio::test]
async fn the_booker_names_the_party_up_to_its_size_and_staff_alone_read_medical_details() {
    let (app, t, fx, _) = venue().await;
    let hold = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    hold.assert_status(200);
    let (b, token) = (
        hold.str("id").to_owned(),
        hold.str("bookingToken").to_owned(),
    );
    let first = add(
        &app,
        &t,
        &b,
        Some(&token),
        json!({"firstName": "Ada", "lastName": "L",
        "participantType": "adult", "medicalConditions": "asthma",
        "dietaryRestrictions": "vegan", "emergencyContact": "+358 40 1"}),
    )
    .await;
    first.assert_status(201);
    assert_eq!(first.body["participantType"], "adult");
    assert!(
        first.body.get("medicalConditions").is_none(),
        "hidden from the booker: {}",
        first.text
    );
    let id = first.str("id").to_owned();
    add(
        &app,
        &t,
        &b,
        Some(&token),
        json!({"firstName": "Bo", "lastName": "K", "ageAtBooking": 9}),
    )
    .await
    .assert_status(201);
    add(
        &app,
        &t,
        &b,
        Some(&token),
        json!({"firstName": "Cy", "lastName": "D"}),
    )
    .await
    .assert_error(409, "CONFLICT");
    // Staff read everything; the public booking answer leaves it out.
    let staff = app
        .get(&format!("/api/v1/bookings/{b}/participants"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    staff.assert_status(200);
    assert_eq!(staff.body["participants"][0]["medicalConditions"], "asthma");
    assert_eq!(
        staff.body["participants"][0]["dietaryRestrictions"],
        "vegan"
    );
    assert_eq!(staff.body["unnamedPlaces"], 0);
    let public = app
        .get(&format!("/api/v1/bookings/{b}"))
        .tenant(&t.id)
        .header("x-booking-token", &token)
        .send()
        .await;
    public.assert_status(200);
    assert_eq!(public.body["participants"].as_array().unwrap().len(), 2);
    assert!(!public.text.contains("asthma") && !public.text.contains("vegan"));
    let detail = app
        .get(&format!("/api/v1/admin/bookings/{b}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(
        detail.body["participants"][0]["medicalConditions"],
        "asthma"
    );

    // A change touches only the fields sent; an empty text clears one.
    let changed = app
        .patch(&format!("/api/v1/bookings/{b}/participants/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"lastName": "Lovelace", "dietaryRestrictions": ""}))
        .send()
        .await;
    changed.assert_status(200);
    assert_eq!(changed.body["firstName"], "Ada");
    assert_eq!(changed.body["lastName"], "Lovelace");
    assert!(changed.body.get("dietaryRestrictions").is_none());
    assert_eq!(changed.body["medicalConditions"], "asthma");
    let bad = app
        .patch(&format!("/api/v1/bookings/{b}/participants/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(
            json!({"firstName": "", "dateOfBirth": "2999-01-01", "ageAtBooking": 300,
            "participantType": "Grown Up", "email": "nope"}),
        )
        .send()
        .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    let mut fields = bad.error_fields();
    fields.sort();
    assert_eq!(
        fields,
        [
            "participant.ageAtBooking",
            "participant.dateOfBirth",
            "participant.email",
            "participant.firstName",
            "participant.participantType"
        ]
    );
    app.patch(&format!(
        "/api/v1/bookings/{b}/participants/{}",
        uuid::Uuid::new_v4()
    ))
    .tenant(&t.id)
    .token(&t.owner_token)
    .json(json!({"lastName": "X"}))
    .send()
    .await
    .assert_error(404, "PARTICIPANT_NOT_FOUND");

    // The audit log names who changed whom, never their medical details.
    let audit = app
        .store
        .list_audit(&TenantId::parse(&t.id).unwrap(), "booking", &b)
        .await
        .unwrap();
    let text =
        serde_json::to_string(&audit.iter().map(|e| &e.changes).collect::<Vec<_>>()).unwrap();
    assert!(audit.iter().any(|e| e.action == "participant_changed"));
    assert!(
        !text.contains("asthma") && !text.contains("vegan"),
        "{text}"
    );

    // Removing frees the place; without the token nobody sees the booking.
    app.delete(&format!("/api/v1/bookings/{b}/participants/{id}"))
        .tenant(&t.id)
        .header("x-booking-token", &token)
        .send()
        .await
        .assert_status(204);
    add(
        &app,
        &t,
        &b,
        Some(&token),
        json!({"firstName": "Cy", "lastName": "D"}),
    )
    .await
    .assert_status(201);
    add(
        &app,
        &t,
        &b,
        Some("wrong"),
        json!({"firstName": "Cy", "lastName": "D"}),
    )
    .await
    .assert_error(404, "BOOKING_NOT_FOUND");
    app.get(&format!("/api/v1/bookings/{b}/participants"))
        .tenant(&t.id)
        .send()
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");
}

#[tokio::test]
async fn a_cancelled_booking_keeps_its_participants_as_they_were() {
    let (app, t, fx, _) = venue().await;
    let b = booking(
        &app,
        &t,
        &fx,
        2,
        json!([{"firstName": "Ada", "lastName": "L"}]),
    )
    .await;
    app.post(&format!("/api/v1/bookings/{b}/cancel"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(200);
    add(
        &app,
        &t,
        &b,
        None,
        json!({"firstName": "Bo", "lastName": "K"}),
    )
    .await
    .assert_error(409, "INVALID_TRANSITION");
    let list = app
        .get(&format!("/api/v1/bookings/{b}/participants"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(list.body["participants"].as_array().unwrap().len(), 1);
    // Signing for a cancelled booking is refused too.
    let p = list.body["participants"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    super::waivers::sign(&app, &t, &b, &p, super::waivers::signer())
        .await
        .assert_error(409, "INVALID_TRANSITION");
}

#[tokio::test]
async fn two_signers_of_one_participant_at_once_make_one_signature() {
    let (app, t, _, _, b, p) = super::waivers::one_named().await;
    let attempts = (0..8).map(|_| super::waivers::sign(&app, &t, &b, &p, super::waivers::signer()));
    let answers = futures::future::join_all(attempts).await;
    let ok = answers.iter().filter(|r| r.status == 200).count();
    let already = answers
        .iter()
        .filter(|r| r.status == 409 && r.body["error"] == "ALREADY_SIGNED")
        .count();
    assert_eq!(
        (ok, already),
        (1, 7),
        "{:?}",
        answers.iter().map(|r| &r.text).collect::<Vec<_>>()
    );
    let (rows, total) = app
        .store
        .waiver_signatures(
            &TenantId::parse(&t.id).unwrap(),
            kairos_store::SignatureFilter::default(),
            1,
            20,
        )
        .await
        .unwrap();
    assert_eq!((rows.len(), total), (1, 1));
}

#[tokio::test]
async fn whoever_follows_the_signing_link_names_the_unnamed_places_and_signs() {
    let (app, t, fx, _) = venue().await;
    let b = booking(
        &app,
        &t,
        &fx,
        2,
        json!([{"firstName": "Ada", "lastName": "L"}]),
    )
    .await;
    let join = |body: Value| {
        let app = &app;
        let t = &t;
        let b = b.clone();
        async move {
            app.post(&format!("/api/v1/waivers/booking/{b}/participants"))
                .tenant(&t.id)
                .json(body)
                .send()
                .await
        }
    };
    join(json!({"firstName": "", "dateOfBirth": "someday"}))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let kid = join(
        json!({"firstName": "Kid", "lastName": "L", "dateOfBirth": "2016-01-01",
        "medicalConditions": "not taken here"}),
    )
    .await;
    kid.assert_status(201);
    assert_eq!(kid.body["isMinor"], true);
    join(json!({"firstName": "Third", "lastName": "X"}))
        .await
        .assert_error(409, "CONFLICT");
    let staff = app
        .get(&format!("/api/v1/bookings/{b}/participants"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert!(!staff.text.contains("not taken here"), "{}", staff.text);
    let mut body = super::waivers::signer();
    body["guardianRelationship"] = json!("mother");
    let signed = super::waivers::sign(&app, &t, &b, kid.str("participantId"), body).await;
    signed.assert_status(200);
    assert_eq!(signed.body["data"]["isGuardianSignature"], true);
    app.post(&format!(
        "/api/v1/waivers/booking/{}/participants",
        uuid::Uuid::new_v4()
    ))
    .tenant(&t.id)
    .json(json!({"firstName": "A", "lastName": "B"}))
    .send()
    .await
    .assert_error(404, "BOOKING_NOT_FOUND");
}

#[tokio::test]
async fn a_party_is_made_smaller_only_once_those_not_coming_are_removed() {
    let (app, t, fx, _) = venue().await;
    let b = booking(
        &app,
        &t,
        &fx,
        2,
        json!([{"firstName": "Ada", "lastName": "L"},
        {"firstName": "Bo", "lastName": "K"}]),
    )
    .await;
    let reduce = || {
        app.post(&format!("/api/v1/admin/bookings/{b}/cancel"))
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(json!({"reason": "reduced_party_size", "newPartySize": 1}))
            .send()
    };
    let refused = reduce().await;
    refused.assert_error(400, "VALIDATION_ERROR");
    assert!(
        refused.text.contains("remove 1 of them"),
        "{}",
        refused.text
    );
    let list = app
        .get(&format!("/api/v1/bookings/{b}/participants"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    let bo = list.body["participants"][1]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.delete(&format!("/api/v1/bookings/{b}/participants/{bo}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(204);
    let done = reduce().await;
    done.assert_status(200);
    assert_eq!(done.body["status"], "confirmed", "{}", done.text);
}
