//! Customer accounts (spec Part A sections 2.4 and 4.6): register, login, profile.

mod error;

use crate::auth::tokens::TokenKind;
use crate::error::{ApiError, ApiResult, ErrorBody, code};
use crate::extract::{CustomerAuth, Json, Tenant, nullable};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::customers::{
    Email, RegistrationInput, clean, parse_registration, validate_name, validate_phone,
};
use kairos_store::{Customer, CustomerPatch, NewCustomer};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Registration input.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegisterRequest {
    #[schema(example = "ada@example.com", format = Email, max_length = 254, required = true)]
    pub email: Option<String>,
    /// At least 8 characters.
    #[schema(min_length = 8, max_length = 128, required = true)]
    pub password: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    #[schema(
        example = "+358401234567",
        pattern = "^(|\\+?[ ().-]*([0-9][ ().-]*){6,20})$"
    )]
    pub phone: Option<String>,
    /// Default false.
    pub marketing_opt_in: Option<bool>,
    /// Default false.
    pub sms_opt_in: Option<bool>,
    /// Must be true.
    #[schema(required = true, value_type = crate::openapi::schemas::AcceptedSchema)]
    pub terms_accepted: Option<bool>,
    /// Must be true.
    #[schema(required = true, value_type = crate::openapi::schemas::AcceptedSchema)]
    pub privacy_policy_accepted: Option<bool>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CustomerLoginRequest {
    #[schema(min_length = 1, required = true)]
    pub email: Option<String>,
    #[schema(min_length = 1, required = true)]
    pub password: Option<String>,
}

/// The customer block of the register response.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegisteredCustomer {
    pub id: String,
    pub email: String,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub phone: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// The customer block of the login response.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignedInCustomer {
    pub id: String,
    pub email: String,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub phone: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RegisterResponse {
    pub access_token: String,
    #[schema(example = "Bearer")]
    pub token_type: String,
    #[schema(example = 3600)]
    pub expires_in: i64,
    pub customer: RegisteredCustomer,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CustomerLoginResponse {
    pub access_token: String,
    #[schema(example = "Bearer")]
    pub token_type: String,
    #[schema(example = 3600)]
    pub expires_in: i64,
    pub customer: SignedInCustomer,
}

/// `GET /customers/me`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerProfile {
    pub id: String,
    pub email: String,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub phone: Option<String>,
    pub marketing_opt_in: bool,
    pub sms_opt_in: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// `PATCH /customers/me` response.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdatedCustomerProfile {
    pub id: String,
    pub email: String,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub phone: Option<String>,
    pub marketing_opt_in: bool,
    pub sms_opt_in: bool,
    pub updated_at: DateTime<Utc>,
}

/// Profile changes; absent fields stay, `null` clears an optional text field.
/// `smsOptIn` may be changed too, so a customer can always withdraw consent.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateProfileRequest {
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub first_name: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    pub last_name: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, pattern = "^(|\\+?[ ().-]*([0-9][ ().-]*){6,20})$")]
    pub phone: Option<Option<String>>,
    pub marketing_opt_in: Option<bool>,
    pub sms_opt_in: Option<bool>,
}

fn token_for(state: &AppState, tenant: &Tenant, customer: &Customer) -> ApiResult<String> {
    state.tokens.issue(
        TokenKind::Customer,
        &customer.id.to_string(),
        tenant.id().as_str(),
        0,
        state.now(),
        state.config.token_ttl_secs,
    )
}

/// Create a customer account and sign in.
#[utoipa::path(
    post, path = "/api/v1/customers/register", tag = "customers", security(()),
    request_body = RegisterRequest,
    responses(
        (status = 201, body = RegisterResponse),
        (status = 400, description = "VALIDATION_ERROR: e.g. password shorter than 8 characters, terms not accepted", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown tenant", body = ErrorBody),
        (status = 409, description = "EMAIL_EXISTS", body = ErrorBody),
        (status = 503, description = "SERVICE_UNAVAILABLE: too many password checks at once; retry after Retry-After seconds", body = ErrorBody),
        (status = 429, description = "Rate limited (strict tier)", body = crate::error::RateLimitedBody),
    )
)]
pub async fn register(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(body): Json<RegisterRequest>,
) -> ApiResult<(StatusCode, axum::Json<RegisterResponse>)> {
    let input = RegistrationInput {
        email: body.email.as_deref(),
        password: body.password.as_deref(),
        first_name: body.first_name.as_deref(),
        last_name: body.last_name.as_deref(),
        phone: body.phone.as_deref(),
        marketing_opt_in: body.marketing_opt_in,
        sms_opt_in: body.sms_opt_in,
        terms_accepted: body.terms_accepted,
        privacy_policy_accepted: body.privacy_policy_accepted,
    };
    let reg = parse_registration(&input).map_err(ApiError::validation)?;
    let password_hash = state
        .passwords
        .hash(body.password.unwrap_or_default())
        .await?;
    let customer = state
        .store
        .create_customer(
            tenant.id(),
            NewCustomer {
                email: reg.email.into_string(),
                password_hash: Some(password_hash),
                first_name: reg.first_name,
                last_name: reg.last_name,
                phone: reg.phone,
                marketing_opt_in: reg.marketing_opt_in,
                sms_opt_in: reg.sms_opt_in,
                terms_accepted: true,
                privacy_accepted: true,
            },
            state.now(),
        )
        .await?;
    let token = token_for(&state, &tenant, &customer)?;
    Ok((
        StatusCode::CREATED,
        axum::Json(RegisterResponse {
            access_token: token,
            token_type: "Bearer".to_owned(),
            expires_in: state.config.token_ttl_secs,
            customer: RegisteredCustomer {
                id: customer.id.to_string(),
                email: customer.email,
                first_name: customer.first_name,
                last_name: customer.last_name,
                phone: customer.phone,
                created_at: customer.created_at,
            },
        }),
    ))
}

/// Sign in as a customer.
#[utoipa::path(
    post, path = "/api/v1/customers/login", tag = "customers", security(()),
    request_body = CustomerLoginRequest,
    responses(
        (status = 200, body = CustomerLoginResponse),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, description = "INVALID_CREDENTIALS (same answer whether or not the email exists)", body = ErrorBody),
        (status = 503, description = "SERVICE_UNAVAILABLE: too many password checks at once; retry after Retry-After seconds", body = ErrorBody),
        (status = 429, description = "Rate limited (strict tier)", body = crate::error::RateLimitedBody),
    )
)]
pub async fn login(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(body): Json<CustomerLoginRequest>,
) -> ApiResult<axum::Json<CustomerLoginResponse>> {
    let mut errors = FieldErrors::new();
    let email = body.email.filter(|e| !e.trim().is_empty());
    let password = body.password.filter(|p| !p.is_empty());
    if email.is_none() {
        errors.add("email", "is required");
    }
    if password.is_none() {
        errors.add("password", "is required");
    }
    errors.finish().map_err(ApiError::validation)?;
    let (Some(email), Some(password)) = (email, password) else {
        return Err(ApiError::validation(FieldErrors::new()));
    };
    let customer = match Email::parse(&email) {
        Ok(e) => {
            state
                .store
                .find_customer_by_email(tenant.id(), e.as_str())
                .await?
        }
        Err(_) => None,
    };
    let stored = customer.as_ref().and_then(|c| c.password_hash.clone());
    let ok = state.passwords.verify(password, stored).await?;
    let (Some(customer), true) = (customer, ok) else {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            code::INVALID_CREDENTIALS,
            "Invalid email or password",
        ));
    };
    let token = token_for(&state, &tenant, &customer)?;
    Ok(axum::Json(CustomerLoginResponse {
        access_token: token,
        token_type: "Bearer".to_owned(),
        expires_in: state.config.token_ttl_secs,
        customer: SignedInCustomer {
            id: customer.id.to_string(),
            email: customer.email,
            first_name: customer.first_name,
            last_name: customer.last_name,
            phone: customer.phone,
        },
    }))
}

/// The signed-in customer's profile.
#[utoipa::path(
    get, path = "/api/v1/customers/me", tag = "customers",
    security(("bearer" = [])),
    responses(
        (status = 200, body = CustomerProfile),
        (status = 401, body = ErrorBody),
        (status = 403, description = "Not a customer token, or another tenant's", body = ErrorBody),
    )
)]
pub async fn get_me(auth: CustomerAuth) -> axum::Json<CustomerProfile> {
    let c = &auth.customer;
    axum::Json(CustomerProfile {
        id: c.id.to_string(),
        email: c.email.clone(),
        first_name: c.first_name.clone(),
        last_name: c.last_name.clone(),
        phone: c.phone.clone(),
        marketing_opt_in: c.marketing_opt_in,
        sms_opt_in: c.sms_opt_in,
        created_at: c.created_at,
        updated_at: c.updated_at,
    })
}

/// Update the signed-in customer's profile.
#[utoipa::path(
    patch, path = "/api/v1/customers/me", tag = "customers",
    security(("bearer" = [])),
    request_body = UpdateProfileRequest,
    responses(
        (status = 200, body = UpdatedCustomerProfile),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
    )
)]
pub async fn update_me(
    State(state): State<AppState>,
    auth: CustomerAuth,
    Json(body): Json<UpdateProfileRequest>,
) -> ApiResult<axum::Json<UpdatedCustomerProfile>> {
    let mut errors = FieldErrors::new();
    for (field, value) in [
        ("firstName", &body.first_name),
        ("lastName", &body.last_name),
    ] {
        if let Some(Some(v)) = value {
            errors.check(field, validate_name(v));
        }
    }
    if let Some(Some(p)) = &body.phone
        && !p.trim().is_empty()
    {
        errors.check("phone", validate_phone(p));
    }
    errors.finish().map_err(ApiError::validation)?;
    let text = |v: Option<Option<String>>| v.map(|inner| clean(inner.as_deref()));
    let patch = CustomerPatch {
        first_name: text(body.first_name),
        last_name: text(body.last_name),
        phone: text(body.phone),
        marketing_opt_in: body.marketing_opt_in,
        sms_opt_in: body.sms_opt_in,
    };
    let c = state
        .store
        .update_customer(auth.tenant.id(), auth.customer.id, patch, state.now())
        .await?;
    Ok(axum::Json(UpdatedCustomerProfile {
        id: c.id.to_string(),
        email: c.email,
        first_name: c.first_name,
        last_name: c.last_name,
        phone: c.phone,
        marketing_opt_in: c.marketing_opt_in,
        sms_opt_in: c.sms_opt_in,
        updated_at: c.updated_at,
    }))
}

use crate::rate_limit::Tier;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Registration and sign-in (strict rate limit tier) and the customer's own profile.
pub fn router() -> OpenApiRouter<AppState> {
    let sign_in = Tier::Strict.apply(
        OpenApiRouter::new()
            .routes(routes!(register))
            .routes(routes!(login)),
    );
    Tier::Standard
        .apply(OpenApiRouter::new().routes(routes!(get_me, update_me)))
        .merge(sign_in)
}
