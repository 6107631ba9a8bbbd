//! A bank-redirect provider for tests, speaking the part of Paytrail's payment API Kairos
//! uses: `POST /payments`, whose request must carry Paytrail's `checkout-*` headers and a
//! valid `signature` (else 401, as Paytrail answers), answered 201 `{transactionId, href,
//! reference, terms, groups, providers}` with the answer signed the same way; `GET
//! /payments/{transactionId}` (signed likewise, over an empty body), answered 200 `{id,
//! status, amount, currency, stamp, reference, href}` with the status the test set (`new`
//! until then), 404 for a transaction it did not create; and `POST
//! /payments/{transactionId}/refund` (the transaction also in `checkout-transaction-id`),
//! answered 201 `{provider, status, transactionId}` with the status the test chose (`ok`
//! by default, `pending`, `fail`), or taken and answered 503 (`unavailable`). Every request it accepted is kept for the test to
//! read. Also signs callbacks as Paytrail does.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use kairos_domain::payments::bankpay_signature::{Algorithm, sign, verify};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

#[derive(Clone)]
struct Shared {
    merchant: String,
    secret: String,
    accepted: Arc<Mutex<Vec<Value>>>,
    refunds: Arc<Mutex<Vec<Value>>>,
    refund_status: Arc<Mutex<String>>,
    /// transaction id → (the creation request, its status).
    payments: Arc<Mutex<std::collections::HashMap<String, (Value, String)>>>,
}

/// A running test provider.
pub struct BankpayServer {
    pub url: String,
    pub merchant: String,
    pub secret: String,
    accepted: Arc<Mutex<Vec<Value>>>,
    refunds: Arc<Mutex<Vec<Value>>>,
    refund_status: Arc<Mutex<String>>,
    payments: Arc<Mutex<std::collections::HashMap<String, (Value, String)>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl BankpayServer {
    /// Starts a provider for merchant `merchant` with `secret` on a free local port.
    pub async fn start(merchant: &str, secret: &str) -> BankpayServer {
        let shared = Shared {
            merchant: merchant.to_owned(),
            secret: secret.to_owned(),
            accepted: Arc::default(),
            refunds: Arc::default(),
            refund_status: Arc::new(Mutex::new("ok".to_owned())),
            payments: Arc::default(),
        };
        let app = axum::Router::new()
            .route("/payments", axum::routing::post(create))
            .route("/payments/{transaction}", axum::routing::get(payment))
            .route(
                "/payments/{transaction}/refund",
                axum::routing::post(refund),
            )
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("bankpay test server: {e}"));
        let addr = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("bankpay test server: {e}"));
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        BankpayServer {
            url: format!("http://{addr}"),
            merchant: shared.merchant,
            secret: shared.secret,
            accepted: shared.accepted,
            refunds: shared.refunds,
            refund_status: shared.refund_status,
            payments: shared.payments,
        }
    }

    /// What `GET /payments/{transaction}` answers from now on as the payment's status
    /// (`ok`, `fail`, `pending`, `delayed`; `new` until set).
    pub fn set_payment_status(&self, transaction: &str, status: &str) {
        if let Some(entry) = lock(&self.payments).get_mut(transaction) {
            entry.1 = status.to_owned();
        }
    }

    /// How many times a payment's status was asked for.
    pub fn status_queries(&self) -> usize {
        lock(&self.payments)
            .values()
            .map(|(request, _)| request["queries"].as_u64().unwrap_or(0) as usize)
            .sum()
    }

    /// The bodies of the refunds it accepted, oldest first, each with the payment's
    /// `transactionId` and the refund's `refundTransactionId` added.
    pub fn refunds(&self) -> Vec<Value> {
        lock(&self.refunds).clone()
    }

    /// How it answers the next refunds: `ok`, `pending` or `fail`; `unavailable`: it
    /// takes the refund but answers 503 (the answer lost).
    pub fn answer_refunds(&self, status: &str) {
        *lock(&self.refund_status) = status.to_owned();
    }

    /// The bodies of the payments it created, oldest first.
    pub fn accepted(&self) -> Vec<Value> {
        lock(&self.accepted).clone()
    }

    /// The query string of a Paytrail-style callback for `transaction` with `status`
    /// (`ok`, `fail`, `pending`, `delayed`) of `amount` minor units, signed with `secret`.
    pub fn callback_query(
        &self,
        stamp: &str,
        transaction: &str,
        status: &str,
        amount: i64,
    ) -> String {
        let amount = amount.to_string();
        let params = [
            ("checkout-account", self.merchant.as_str()),
            ("checkout-algorithm", "sha256"),
            ("checkout-amount", amount.as_str()),
            ("checkout-stamp", stamp),
            ("checkout-reference", "ref"),
            ("checkout-transaction-id", transaction),
            ("checkout-status", status),
            ("checkout-provider", "nordea"),
        ];
        let signature = sign(&self.secret, Algorithm::Sha256, params, "");
        let mut query: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        query.push(format!("signature={signature}"));
        query.join("&")
    }
}

/// Paytrail's answer to a request not signed by the merchant.
fn unauthorized() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        axum::Json(json!({"status": "error", "message": "Invalid signature"})),
    )
        .into_response()
}

/// The request's body when its `checkout-*` headers and `signature` are the merchant's.
fn signed_request(s: &Shared, headers: &HeaderMap, body: &Bytes) -> Option<String> {
    let text = String::from_utf8_lossy(body).into_owned();
    let params: Vec<(String, String)> = headers
        .iter()
        .filter(|(n, _)| n.as_str().starts_with("checkout-"))
        .filter_map(|(n, v)| Some((n.as_str().to_owned(), v.to_str().ok()?.to_owned())))
        .collect();
    let signature = headers
        .get("signature")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let account = params
        .iter()
        .find(|(k, _)| k == "checkout-account")
        .map(|(_, v)| v.as_str());
    let signed = params.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    let required = [
        "checkout-algorithm",
        "checkout-method",
        "checkout-nonce",
        "checkout-timestamp",
    ];
    if account != Some(s.merchant.as_str())
        || !required.iter().all(|r| params.iter().any(|(k, _)| k == r))
        || !verify(&s.secret, signed, &text, signature)
    {
        return None;
    }
    Some(text)
}

/// A 201 answer with `answer`, signed as Paytrail signs its answers.
fn signed_answer(s: &Shared, transaction: &str, answer: &str) -> Response {
    let answer_headers = [
        ("checkout-account", s.merchant.clone()),
        ("checkout-algorithm", "sha256".to_owned()),
        ("checkout-transaction-id", transaction.to_owned()),
    ];
    let signature = sign(
        &s.secret,
        Algorithm::Sha256,
        answer_headers.iter().map(|(k, v)| (*k, v.as_str())),
        answer,
    );
    let mut response = (StatusCode::CREATED, answer.to_owned()).into_response();
    let h = response.headers_mut();
    h.insert(
        "content-type",
        http::HeaderValue::from_static("application/json"),
    );
    for (k, v) in answer_headers {
        if let Ok(v) = http::HeaderValue::from_str(&v) {
            h.insert(k, v);
        }
    }
    if let Ok(v) = http::HeaderValue::from_str(&signature) {
        h.insert("signature", v);
    }
    response
}

fn invalid_request() -> Response {
    (
        StatusCode::BAD_REQUEST,
        axum::Json(json!({"status": "error", "message": "Invalid request"})),
    )
        .into_response()
}

async fn refund(
    State(s): State<Shared>,
    axum::extract::Path(transaction): axum::extract::Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(text) = signed_request(&s, &headers, &body) else {
        return unauthorized();
    };
    let header_transaction = headers
        .get("checkout-transaction-id")
        .and_then(|v| v.to_str().ok());
    let mut request: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let complete = header_transaction == Some(transaction.as_str())
        && request["amount"].as_i64().is_some_and(|a| a > 0)
        && request["refundStamp"].is_string()
        && request["callbackUrls"]["success"].is_string()
        && request["callbackUrls"]["cancel"].is_string();
    if !complete {
        return invalid_request();
    }
    let refund_transaction = uuid::Uuid::new_v4().to_string();
    let status = lock(&s.refund_status).clone();
    request["transactionId"] = json!(transaction);
    request["refundTransactionId"] = json!(refund_transaction);
    lock(&s.refunds).push(request);
    if status == "unavailable" {
        // Taken, but the answer is lost (a gateway error on the way back).
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    }
    let answer = json!({
        "provider": "nordea",
        "status": status,
        "transactionId": refund_transaction,
    })
    .to_string();
    signed_answer(&s, &refund_transaction, &answer)
}

async fn create(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let Some(text) = signed_request(&s, &headers, &body) else {
        return unauthorized();
    };
    let request: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let complete = [
        "stamp",
        "reference",
        "amount",
        "currency",
        "language",
        "redirectUrls",
        "callbackUrls",
    ]
    .iter()
    .all(|f| !request[f].is_null())
        && request["amount"].as_i64().is_some_and(|a| a > 0);
    if !complete {
        return invalid_request();
    }
    let transaction = uuid::Uuid::new_v4().to_string();
    let answer = json!({
        "transactionId": transaction,
        "href": format!("https://pay.paytrail.test/pay/{transaction}"),
        "reference": request["reference"],
        "terms": "https://www.paytrail.com",
        "groups": [],
        "providers": [],
    })
    .to_string();
    lock(&s.payments).insert(transaction.clone(), (request.clone(), "new".to_owned()));
    lock(&s.accepted).push(request);
    signed_answer(&s, &transaction, &answer)
}

async fn payment(
    State(s): State<Shared>,
    axum::extract::Path(transaction): axum::extract::Path<String>,
    headers: HeaderMap,
) -> Response {
    if signed_request(&s, &headers, &Bytes::new()).is_none() {
        return unauthorized();
    }
    let header_transaction = headers
        .get("checkout-transaction-id")
        .and_then(|v| v.to_str().ok());
    let method = headers.get("checkout-method").and_then(|v| v.to_str().ok());
    if header_transaction != Some(transaction.as_str()) || method != Some("GET") {
        return invalid_request();
    }
    let answer = {
        let mut payments = lock(&s.payments);
        let Some((request, status)) = payments.get_mut(&transaction) else {
            return (
                StatusCode::NOT_FOUND,
                axum::Json(json!({"status": "error", "message": "Payment not found"})),
            )
                .into_response();
        };
        let queries = request["queries"].as_u64().unwrap_or(0) + 1;
        request["queries"] = json!(queries);
        json!({
            "id": transaction,
            "status": status.as_str(),
            "amount": request["amount"],
            "currency": request["currency"],
            "stamp": request["stamp"],
            "reference": request["reference"],
            "href": format!("https://pay.paytrail.test/pay/{transaction}"),
        })
        .to_string()
    };
    let mut response = signed_answer(&s, &transaction, &answer);
    *response.status_mut() = StatusCode::OK;
    response
}
