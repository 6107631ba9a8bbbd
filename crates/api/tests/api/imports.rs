//! CSV import of promotions and vouchers (spec Part A 4.9): preview, execute, every error
//! type, the upload limits, and export → import into another tenant.

use kairos_testkit::{TenantFixture, TestApp, TestResponse, on_postgres};
use serde_json::{Value, json};

const BOUNDARY: &str = "kairos-test-boundary";

/// A multipart body with `csv` as the field `file`.
fn multipart(field: &str, csv: &[u8]) -> Vec<u8> {
    let mut body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"import.csv\"\r\nContent-Type: text/csv\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(csv);
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    body
}

async fn upload(app: &TestApp, t: &TenantFixture, path: &str, csv: &[u8]) -> TestResponse {
    app.post(path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .header(
            "content-type",
            &format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .raw(multipart("file", csv))
        .send()
        .await
}

const PROMO_HEADER: &str = "code,name,promotionType,discountValue,buyQuantity,bundleSize,startsAt,expiresAt,isStackable,usageLimit,applicableSites,currency";

fn errors_of(row: &Value) -> Vec<(String, String)> {
    row["errors"]
        .as_array()
        .map(|e| {
            e.iter()
                .map(|e| {
                    (
                        e["field"].as_str().unwrap_or_default().to_owned(),
                        e["type"].as_str().unwrap_or_default().to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_promotion_preview_names_every_error_type_and_stores_nothing() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    app.post("/api/v1/admin/promotions")
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"code": "TAKEN", "name": "Taken", "type": "percentage", "discount_value": 5, "starts_at": "2026-11-01T00:00:00Z"}))
        .send()
        .await
        .assert_status(200);
    let long = "X".repeat(51);
    let csv = format!(
        "\u{feff}{PROMO_HEADER}\n\
         SPRING10,Spring,percentage,10,,,2026-12-01,2027-01-01,true,100,,EUR\n\
         NONAME,,percentage,10,,,2026-12-01,,,,,\n\
         BADNUM,Bad,fixed_amount,abc,,,2026-12-01,,,,,\n\
         {long},Long,percentage,10,,,2026-12-01,,,,,\n\
         BADTYPE,Bad type,bogus,10,,,2026-12-01,,,,,\n\
         BADDATE,Bad date,percentage,10,,,tomorrow,,,,,\n\
         TOOMUCH,Too much,percentage,150,,,2026-12-01,,,,,\n\
         spring10,Again,percentage,10,,,2026-12-01,,,,,\n\
         taken,Taken again,percentage,10,,,2026-12-01,,,,,\n\
         BACKWARDS,Backwards,percentage,10,,,2027-01-01,2026-12-01,,,,\n\
         NOWHERE,Nowhere,percentage,10,,,2026-12-01,,,,00000000-0000-7000-8000-000000000001,\n\
         SHORT,Short row\n\
         FOURTH,Bring four,buy_x_get_y,1,3,,2026-12-01T00:00:00Z,,,,,eur\n\
         '=EVIL,Formula,fixed_amount,2,,,2026-12-01,,,,,USD\n"
    );
    let res = upload(
        &app,
        &t,
        "/api/v1/admin/promotions/import/preview",
        csv.as_bytes(),
    )
    .await;
    res.assert_status(200);
    let b = &res.body;
    assert_eq!(b["totalRows"], 14);
    assert_eq!(b["validRows"], 2, "{}", res.text);
    assert_eq!(b["invalidRows"], 12);
    assert_eq!(b["canProceed"], true);
    assert!((b["estimatedSuccessRate"].as_f64().unwrap_or(0.0) - 2.0 / 14.0).abs() < 1e-9);
    let rows = b["preview"].as_array().cloned().unwrap_or_default();
    assert_eq!(rows.len(), 14);
    let expect = [
        (2, vec![]),
        (3, vec![("name", "missing_required_field")]),
        (4, vec![("discountValue", "invalid_field_type")]),
        (5, vec![("code", "field_too_long")]),
        (6, vec![("promotionType", "invalid_enum_value")]),
        (7, vec![("startsAt", "invalid_date_format")]),
        (8, vec![("discountValue", "value_out_of_range")]),
        (9, vec![("code", "duplicate_code_in_batch")]),
        (10, vec![("code", "code_already_exists")]),
        (11, vec![("expiresAt", "invalid_date_range")]),
        (12, vec![("applicableSites", "reference_not_found")]),
        (13, vec![("row", "unknown_error")]),
        (14, vec![]),
        (15, vec![("currency", "invalid_enum_value")]),
    ];
    for (row, (number, errors)) in rows.iter().zip(expect) {
        assert_eq!(row["rowNumber"], number);
        let want: Vec<(String, String)> = errors
            .iter()
            .map(|(f, k)| ((*f).to_owned(), (*k).to_owned()))
            .collect();
        assert_eq!(errors_of(row), want, "row {number}: {row}");
        assert_eq!(row["isValid"], want.is_empty());
        assert_eq!(
            row["action"],
            if want.is_empty() { "create" } else { "skip" }
        );
    }
    assert_eq!(rows[0]["data"]["code"], "SPRING10");
    // The neutralised formula is read back as it was.
    assert_eq!(rows[13]["data"]["code"], "=EVIL");
    let summary = b["errorSummary"].as_array().cloned().unwrap_or_default();
    assert!(summary.iter().any(|s| s["field"] == "code"
        && s["errorType"] == "code_already_exists"
        && s["count"] == 1
        && s["affectedRows"] == json!([10])));
    let duplicates = b["duplicateCodes"].as_array().cloned().unwrap_or_default();
    assert!(duplicates.iter().any(|d| d["code"] == "SPRING10"
        && d["rows"] == json!([2, 9])
        && d["existingId"].is_null()));
    assert!(
        duplicates
            .iter()
            .any(|d| d["code"] == "taken" && d["existingId"].is_string())
    );

    // Nothing was stored.
    let list = app
        .get("/api/v1/admin/promotions")
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(list.body["total"], 1);
}

#[tokio::test]
async fn a_promotion_import_creates_the_valid_rows_and_reports_the_others() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let csv = format!(
        "{PROMO_HEADER}\n\
         SPRING10,Spring,percentage,10,,,2026-12-01,2027-01-01,true,100,,EUR\n\
         TRIO,Three for 50,bundle,50,,3,2026-12-01,,,,,\n\
         spring10,Again,percentage,10,,,2026-12-01,,,,,\n\
         BROKEN,,percentage,10,,,2026-12-01,,,,,\n"
    );
    let res = upload(&app, &t, "/api/v1/admin/promotions/import", csv.as_bytes()).await;
    res.assert_status(200);
    let b = &res.body;
    assert_eq!(b["success"], true);
    assert_eq!(b["totalRows"], 4);
    assert_eq!(b["successCount"], 2);
    assert_eq!(b["failureCount"], 2);
    assert_eq!(b["skippedCount"], 0);
    assert_eq!(b["importedBy"], "owner");
    assert!(b["importedAt"].is_string());
    assert!(b["executionTimeMs"].is_u64());
    assert_eq!(b["createdIds"].as_array().map(Vec::len), Some(2));
    let results = b["results"].as_array().cloned().unwrap_or_default();
    assert_eq!(results[0]["action"], "created");
    assert_eq!(results[0]["code"], "SPRING10");
    assert!(results[0]["entityId"].is_string());
    assert_eq!(results[2]["action"], "failed");
    assert_eq!(
        errors_of(&results[2]),
        [("code".to_owned(), "duplicate_code_in_batch".to_owned())]
    );
    assert_eq!(
        errors_of(&results[3]),
        [("name".to_owned(), "missing_required_field".to_owned())]
    );
    let got = app
        .get(&format!(
            "/api/v1/admin/promotions/{}",
            results[1]["entityId"].as_str().unwrap_or_default()
        ))
        .tenant("acme")
        .token(&t.owner_token)
        .send()
        .await;
    got.assert_status(200);
    assert_eq!(got.body["type"], "bundle");
    assert_eq!(got.body["bundle_size"], 3);
    assert_eq!(got.body["discount_value"], 50.0);
    assert_eq!(got.body["usage_count"], 0);
}

#[tokio::test]
async fn a_row_the_database_refuses_is_a_database_error_and_the_others_still_land() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let trigger = if on_postgres() {
        "CREATE FUNCTION refuse_boom() RETURNS trigger AS $$ BEGIN
             IF NEW.code = 'BOOM' THEN RAISE EXCEPTION 'boom refused'; END IF; RETURN NEW;
         END $$ LANGUAGE plpgsql;
         CREATE TRIGGER refuse_boom BEFORE INSERT ON promotions
             FOR EACH ROW EXECUTE FUNCTION refuse_boom();"
    } else {
        "CREATE TRIGGER refuse_boom BEFORE INSERT ON promotions WHEN NEW.code = 'BOOM'
         BEGIN SELECT RAISE(ABORT, 'boom refused'); END;"
    };
    app.store
        .execute_raw(trigger)
        .await
        .unwrap_or_else(|e| panic!("trigger: {e}"));
    let csv = format!(
        "{PROMO_HEADER}\n\
         FIRST,First,percentage,10,,,2026-12-01,,,,,\n\
         BOOM,Boom,percentage,10,,,2026-12-01,,,,,\n\
         LAST,Last,percentage,10,,,2026-12-01,,,,,\n"
    );
    let res = upload(&app, &t, "/api/v1/admin/promotions/import", csv.as_bytes()).await;
    res.assert_status(200);
    assert_eq!(res.body["successCount"], 2);
    let results = res.body["results"].as_array().cloned().unwrap_or_default();
    assert_eq!(results[1]["action"], "failed");
    assert_eq!(errors_of(&results[1])[0].1, "database_error");
    assert_eq!(results[2]["action"], "created");
}

#[tokio::test]
async fn uploads_are_checked_before_any_row() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let path = "/api/v1/admin/promotions/import/preview";
    // Over 10 MB: 413 in shape A.
    let mut big = PROMO_HEADER.as_bytes().to_vec();
    big.resize(10 * 1024 * 1024 + 1, b' ');
    upload(&app, &t, path, &big)
        .await
        .assert_error(413, "PAYLOAD_TOO_LARGE");
    // Not UTF-8, a required column missing, no file field.
    upload(&app, &t, path, b"code,name\n\xff\xfe,x\n")
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let missing = upload(&app, &t, path, b"code,name\nA,B\n").await;
    missing.assert_error(400, "VALIDATION_ERROR");
    assert!(missing.text.contains("promotionType"), "{}", missing.text);
    // A column named twice, on the preview and the import alike: refused, named.
    for path in [
        path,
        "/api/v1/admin/promotions/import",
        "/api/v1/admin/vouchers/import",
    ] {
        let twice = format!("code,{PROMO_HEADER}\nA1,A2,B\n");
        let repeated = upload(&app, &t, path, twice.as_bytes()).await;
        repeated.assert_error(400, "VALIDATION_ERROR");
        assert!(
            repeated.text.contains("code more than once"),
            "{path}: {}",
            repeated.text
        );
    }
    let res = app
        .post(path)
        .tenant("acme")
        .token(&t.owner_token)
        .header(
            "content-type",
            &format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .raw(multipart("other", b"code\n"))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["file"]);
    // Two files in one upload.
    let mut two = multipart("file", b"code\n");
    two.truncate(two.len() - format!("--{BOUNDARY}--\r\n").len());
    two.extend_from_slice(&multipart("file", b"code\n"));
    let twice = app
        .post(path)
        .tenant("acme")
        .token(&t.owner_token)
        .header(
            "content-type",
            &format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .raw(two)
        .send()
        .await;
    twice.assert_error(400, "VALIDATION_ERROR");
    assert!(twice.text.contains("twice"), "{}", twice.text);
    // Not multipart at all.
    let json_body = app
        .post(path)
        .tenant("acme")
        .token(&t.owner_token)
        .json(json!({"file": "code\n"}))
        .send()
        .await;
    json_body.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(json_body.error_fields(), vec!["file"]);
    // An empty file: nothing to do.
    let empty = upload(&app, &t, path, PROMO_HEADER.as_bytes()).await;
    empty.assert_status(200);
    assert_eq!(empty.body["totalRows"], 0);
    assert_eq!(empty.body["canProceed"], false);
}

async fn export_csv(app: &TestApp, t: &TenantFixture, what: &str) -> String {
    let res = app
        .get(&format!("/api/v1/admin/{what}/export?format=csv"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    res.text.clone()
}

/// The rows of an export without the columns that belong to one tenant's records.
fn comparable(csv: &str, drop: &[&str]) -> Vec<Vec<String>> {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let headers: Vec<String> = reader
        .headers()
        .map(|h| h.iter().map(str::to_owned).collect())
        .unwrap_or_default();
    let mut rows: Vec<Vec<String>> = reader
        .records()
        .filter_map(Result::ok)
        .map(|r| {
            headers
                .iter()
                .zip(r.iter())
                .filter(|(h, _)| !drop.contains(&h.as_str()))
                .map(|(_, v)| v.to_owned())
                .collect()
        })
        .collect();
    rows.sort();
    rows
}

#[tokio::test]
async fn an_export_imports_into_another_tenant_as_the_same_promotions_and_vouchers() {
    let app = TestApp::spawn().await;
    let acme = app.tenant("acme").await;
    let other = app.tenant("other").await;
    for body in [
        json!({"code": "TEN", "name": "Ten, \"quoted\"", "description": "=1+1", "type": "percentage", "discount_value": 10, "max_discount_amount": 5, "min_spend_amount": 20, "starts_at": "2026-11-01T00:00:00Z", "expires_at": "2027-01-01T00:00:00Z", "is_stackable": true, "usage_limit": 50, "per_customer_limit": 2, "is_public": false}),
        json!({"code": "FOURTH", "name": "Bring four", "type": "buy_x_get_y", "buy_quantity": 3, "discount_value": 1, "starts_at": "2026-11-01T00:00:00Z", "is_active": false}),
        json!({"code": "TRIO", "name": "Trio", "type": "bundle", "bundle_size": 3, "discount_value": 49.9, "starts_at": "2026-11-01T00:00:00Z"}),
    ] {
        app.post("/api/v1/admin/promotions")
            .tenant("acme")
            .token(&acme.owner_token)
            .json(body)
            .send()
            .await
            .assert_status(200);
    }
    for body in [
        json!({"code": "GIFT-AAAA-BBBB", "type": "gift_card", "original_value": 50, "expires_at": "2027-12-31T00:00:00Z", "customer_email": "ada@example.com"}),
        json!({"type": "loyalty_credit", "original_value": 12.5}),
        json!({"code": "ONCE", "type": "single_use", "original_value": 5}),
    ] {
        app.post("/api/v1/admin/vouchers")
            .tenant("acme")
            .token(&acme.owner_token)
            .json(body)
            .send()
            .await
            .assert_status(200);
    }
    let promotions = export_csv(&app, &acme, "promotions").await;
    let res = upload(
        &app,
        &other,
        "/api/v1/admin/promotions/import",
        promotions.as_bytes(),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["successCount"], 3, "{}", res.text);
    let vouchers = export_csv(&app, &acme, "vouchers").await;
    let res = upload(
        &app,
        &other,
        "/api/v1/admin/vouchers/import",
        vouchers.as_bytes(),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["successCount"], 3, "{}", res.text);
    assert_eq!(res.body["generatedCodes"], json!([]));

    let per_tenant = ["id", "createdAt", "updatedAt", "issuedAt", "issuedBy"];
    assert_eq!(
        comparable(&export_csv(&app, &other, "promotions").await, &per_tenant),
        comparable(&promotions, &per_tenant)
    );
    assert_eq!(
        comparable(&export_csv(&app, &other, "vouchers").await, &per_tenant),
        comparable(&vouchers, &per_tenant)
    );
}

#[tokio::test]
async fn a_voucher_import_generates_missing_codes_and_keeps_spent_balances_in_the_ledger() {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let csv = "code,voucherType,originalValue,currentBalance,usageCount,usageLimit,expiresAt,customerEmail,currency\n\
         ,gift_card,50,,,,2027-12-31,ada@example.com,EUR\n\
         PARTLY,multi_use,40,15.5,2,,,,\n\
         ,loyalty_credit,10,,,,,,\n\
         BAD,single_use,10,20,,,,,\n\
         WORSE,single_use,10,,,3,,,\n\
         NOPE,coupon,10,,,,,,\n\
         NOMAIL,multi_use,10,,,,,not-an-email,\n\
         partly,multi_use,5,,,,,,\n";
    let preview = upload(
        &app,
        &t,
        "/api/v1/admin/vouchers/import/preview",
        csv.as_bytes(),
    )
    .await;
    preview.assert_status(200);
    assert_eq!(preview.body["totalRows"], 8);
    assert_eq!(preview.body["validRows"], 3, "{}", preview.text);
    let rows = preview.body["preview"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        errors_of(&rows[3]),
        [("currentBalance".to_owned(), "value_out_of_range".to_owned())]
    );
    assert_eq!(
        errors_of(&rows[4]),
        [("usageLimit".to_owned(), "value_out_of_range".to_owned())]
    );
    assert_eq!(
        errors_of(&rows[5]),
        [("voucherType".to_owned(), "invalid_enum_value".to_owned())]
    );
    assert_eq!(
        errors_of(&rows[6]),
        [("customerEmail".to_owned(), "invalid_field_type".to_owned())]
    );
    assert_eq!(
        errors_of(&rows[7]),
        [("code".to_owned(), "duplicate_code_in_batch".to_owned())]
    );

    let res = upload(&app, &t, "/api/v1/admin/vouchers/import", csv.as_bytes()).await;
    res.assert_status(200);
    assert_eq!(res.body["successCount"], 3);
    let generated = res.body["generatedCodes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(generated.len(), 2);
    assert_eq!(generated[0]["rowNumber"], 2);
    let gift = generated[0]["code"].as_str().unwrap_or_default().to_owned();
    let alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    assert!(gift.starts_with("GIFT-") && gift.len() == 14, "{gift}");
    assert!(
        gift[5..].chars().all(|c| c == '-' || alphabet.contains(c)),
        "{gift}"
    );
    assert!(
        generated[1]["code"]
            .as_str()
            .unwrap_or_default()
            .starts_with("VCHR-")
    );

    let balance = app
        .get("/api/v1/vouchers/PARTLY/balance")
        .tenant("acme")
        .send()
        .await;
    balance.assert_status(200);
    assert_eq!(balance.body["voucher"]["original_value"], 40.0);
    assert_eq!(balance.body["voucher"]["current_balance"], 15.5);
    assert_eq!(balance.body["voucher"]["usage_count"], 2);
    let tenant = kairos_domain::TenantId::parse("acme").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        app.store.voucher_ledger_mismatches(&tenant).await.ok(),
        Some(vec![]),
        "every imported balance equals its ledger"
    );
}
