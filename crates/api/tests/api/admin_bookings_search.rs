//! Booking search for staff: filters, sorting, pages and the summary of the whole result.

use super::admin_bookings::{setup, start};
use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::json;

/// A public hold for `who` = (name, email, phone).
async fn hold_as(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    slot: usize,
    party: u32,
    who: (&str, &str, &str),
) -> TestResponse {
    let res = app
        .post("/api/v1/bookings/hold")
        .tenant(&t.id)
        .json(json!({
            "siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
            "slotId": fx.slots[slot], "partySize": party,
            "customer": {"name": who.0, "email": who.1, "phone": who.2}
        }))
        .send()
        .await;
    res.assert_status(200);
    res
}

#[tokio::test]
async fn search_filters_sorts_pages_and_summarises_the_whole_set() {
    let (app, t, fx) = setup().await;
    let a = hold_as(
        &app,
        &t,
        &fx,
        0,
        2,
        ("Ada Lovelace", "ada@example.com", "+358 40 111 2222"),
    )
    .await;
    let b = hold_as(
        &app,
        &t,
        &fx,
        1,
        3,
        ("Alan Turing", "alan@turing.org", "+44 20 7946 0000"),
    )
    .await;
    hold_as(
        &app,
        &t,
        &fx,
        2,
        1,
        ("Ada Byron", "byron@example.com", "+358 40 333"),
    )
    .await;
    // a: tentative (40.00); b: canceled (60.00); c stays a hold (20.00).
    app.post(&format!("/api/v1/bookings/{}/confirm", a.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", a.str("bookingToken"))
        .json(json!({"pricingHash": a.str("pricingHash"), "paymentMethod": "poa"}))
        .send()
        .await
        .assert_status(200);
    app.post(&format!("/api/v1/bookings/{}/cancel", b.str("id")))
        .tenant(&t.id)
        .header("x-booking-token", b.str("bookingToken"))
        .send()
        .await
        .assert_status(200);
    let search = |q: &str| {
        app.get(&format!("/api/v1/admin/bookings{q}"))
            .tenant(&t.id)
            .token(&t.owner_token)
            .send()
    };
    let all = search("").await;
    all.assert_status(200);
    assert_eq!(
        all.body["pagination"],
        json!({"page": 1, "limit": 50, "total": 3, "totalPages": 1})
    );
    assert_eq!(all.body["summary"]["totalBookings"], 3);
    assert_eq!(
        all.body["summary"]["totalRevenue"], 40.0,
        "only the tentative booking counts"
    );
    assert_eq!(
        all.body["summary"]["statusBreakdown"],
        json!({"canceled": 1, "hold": 1, "tentative": 1})
    );
    let item = &all.body["bookings"][2];
    assert_eq!(item["bookingReference"], a.body["reference"]);
    assert_eq!(item["customer"]["name"], "Ada Lovelace");
    assert_eq!(item["slot"]["siteName"], "Main hall");
    assert_eq!(item["slot"]["productName"], "Climbing session");
    assert_eq!(item["slot"]["startTime"], start(0));
    assert_eq!(item["grandTotal"], 40.0);
    assert_eq!(item["paidAmount"], 0.0);

    let names = |res: &TestResponse| -> Vec<String> {
        res.body["bookings"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|b| {
                        b["customer"]["name"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned()
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(
        names(&search("?customerName=ADA").await),
        ["Ada Byron", "Ada Lovelace"]
    );
    assert_eq!(
        names(&search("?customerEmail=turing").await),
        ["Alan Turing"]
    );
    assert_eq!(
        names(&search("?customerPhone=%2B358401112222").await),
        ["Ada Lovelace"]
    );
    assert_eq!(
        names(&search("?customerEmail=100%25").await),
        Vec::<String>::new(),
        "wildcards are literal"
    );
    assert_eq!(
        names(
            &search("?bookingStatus=hold&bookingStatus=canceled&sortBy=customerName&sortOrder=asc")
                .await
        ),
        ["Ada Byron", "Alan Turing"]
    );
    assert_eq!(
        names(
            &search(&format!(
                "?dateFrom={}&dateTo=2026-11-22T09:00:00Z&sortBy=startTime&sortOrder=asc",
                start(0)
            ))
            .await
        ),
        ["Ada Lovelace", "Alan Turing"]
    );
    assert_eq!(
        names(&search("?dateFrom=2026-11-23").await),
        Vec::<String>::new()
    );
    assert_eq!(
        names(&search("?minAmount=30&maxAmount=50").await),
        ["Ada Lovelace"]
    );
    assert_eq!(
        names(&search("?sortBy=grandTotal&sortOrder=desc").await),
        ["Alan Turing", "Ada Lovelace", "Ada Byron"]
    );
    let filtered = search("?bookingStatus=tentative&bookingStatus=canceled").await;
    assert_eq!(filtered.body["summary"]["totalBookings"], 2);
    assert_eq!(
        filtered.body["summary"]["statusBreakdown"],
        json!({"canceled": 1, "tentative": 1})
    );
    let page = search("?limit=1&page=2&sortBy=startTime&sortOrder=asc").await;
    assert_eq!(names(&page), ["Alan Turing"]);
    assert_eq!(
        page.body["pagination"],
        json!({"page": 2, "limit": 1, "total": 3, "totalPages": 3})
    );
    assert_eq!(
        page.body["summary"]["totalBookings"], 3,
        "the summary covers every page"
    );
    assert_eq!(
        names(
            &search(&format!(
                "?siteId={}&productId={}",
                fx.catalog.site_id, fx.catalog.product_id
            ))
            .await
        )
        .len(),
        3
    );

    for bad in [
        "?customerPhone=%2B%25_",
        "?customerName=a%00b",
        "?customerEmail=a%0Ab",
    ] {
        let res = search(bad).await;
        assert_eq!(res.status, 400, "{bad}: {}", res.text);
    }
    let res = search("?limit=101&page=0&sortBy=price&sortOrder=up&bookingStatus=lost&dateFrom=yesterday&minAmount=-1&siteId=x").await;
    res.assert_error(400, "VALIDATION_ERROR");
    let mut fields = res.error_fields();
    fields.sort();
    assert_eq!(
        fields,
        [
            "bookingStatus",
            "dateFrom",
            "limit",
            "minAmount",
            "page",
            "siteId",
            "sortBy",
            "sortOrder"
        ]
    );

    // Permissions and tenancy.
    let me = app.customer_token(&t.id, "cust@example.com").await;
    app.get("/api/v1/admin/bookings")
        .tenant(&t.id)
        .token(&me)
        .send()
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    let other = app.tenant("other").await;
    let res = app
        .get("/api/v1/admin/bookings")
        .tenant(&other.id)
        .token(&other.owner_token)
        .send()
        .await;
    assert_eq!(res.body["summary"]["totalBookings"], 0);
    app.get(&format!("/api/v1/admin/bookings/{}", a.str("id")))
        .tenant(&other.id)
        .token(&other.owner_token)
        .send()
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");
}
