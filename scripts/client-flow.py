#!/usr/bin/env python3
"""The README walkthrough's booking flow through the typed Python client that
openapi-python-client generates from the document (package `kairos_client` on PYTHONPATH):
staff sign in and list products, the public availability, a hold with a customer, a
promotion created by staff and applied with the booking token, the confirmation paying on
arrival, and the staff search that finds the booking. Every call is a generated function
with generated models; an answer of another type than the one expected fails the flow.

    scripts/check-openapi.sh --flow http://127.0.0.1:8080   # generates the client, runs this
    PYTHONPATH=<dir with kairos_client> python3 scripts/client-flow.py http://127.0.0.1:8080
"""

from __future__ import annotations

import argparse
import datetime
import sys
import uuid
from typing import Any, TypeVar

import httpx
from kairos_client import AuthenticatedClient, Client
from kairos_client.api.admin_bookings import admin_bookings_search
from kairos_client.api.auth import auth_login
from kairos_client.api.availability import availability_get_availability
from kairos_client.api.bookings import bookings_confirm, bookings_hold
from kairos_client.api.catalog import catalog_list_products
from kairos_client.api.promotions import promotions_apply_promotion, promotions_create_promotion
from kairos_client.models import (
    ApplyPromotionRequest,
    ApplyPromotionResponse,
    AvailabilityResponse,
    BookingResponse,
    BookingStatus,
    ConfirmRequest,
    CustomerInput,
    HoldRequest,
    LoginRequest,
    LoginResponse,
    PaymentMethod,
    ProductList,
    PromotionCreate,
    PromotionResponse,
    PromotionType,
    SearchResponse,
)
from kairos_client.types import Response

T = TypeVar("T")

PARTY_SIZE = 2
TIMEOUT = httpx.Timeout(30.0)


class FlowError(Exception):
    pass


def expect(step: str, response: Response[Any], wanted: type[T]) -> T:
    """The parsed answer of `step` if it is a `wanted`, else the flow fails with the answer."""
    if isinstance(response.parsed, wanted):
        return response.parsed
    body = response.content.decode("utf-8", "replace")[:500]
    raise FlowError(
        f"{step}: expected {wanted.__name__}, got HTTP {int(response.status_code)}: {body}"
    )


def check(step: str, condition: bool, detail: str) -> None:
    if not condition:
        raise FlowError(f"{step}: {detail}")


def run(base_url: str, tenant: str, username: str, password: str) -> str:
    public = Client(base_url=base_url, raise_on_unexpected_status=True, timeout=TIMEOUT)

    login = expect(
        "sign in",
        auth_login.sync_detailed(
            client=public,
            body=LoginRequest(username=username, password=password, tenant_id=tenant),
        ),
        LoginResponse,
    )
    staff = AuthenticatedClient(
        base_url=base_url,
        token=login.access_token,
        raise_on_unexpected_status=True,
        timeout=TIMEOUT,
    )

    products = expect(
        "list products",
        catalog_list_products.sync_detailed(client=staff, x_tenant_id=tenant),
        ProductList,
    )
    check("list products", len(products.items) > 0, "the tenant has no product")
    product = products.items[0]

    today = datetime.datetime.now(datetime.timezone.utc).date()
    availability = expect(
        "availability",
        availability_get_availability.sync_detailed(
            client=public,
            x_tenant_id=tenant,
            site_id=uuid.UUID(product.site_id),
            product_id=uuid.UUID(product.id),
            date_from=today,
            date_to=today + datetime.timedelta(days=6),
            party_size=PARTY_SIZE,
        ),
        AvailabilityResponse,
    )
    open_slots = [s for s in availability.slots if s.available_capacity >= PARTY_SIZE]
    check("availability", len(open_slots) > 0, f"no slot for {PARTY_SIZE} in the next week")
    slot = open_slots[0]

    # An anonymous hold: the document lists the empty security requirement beside the
    # bearer one ([{}, {bearer: []}]), which openapi-python-client 0.29 still types as
    # AuthenticatedClient; a plain Client is the anonymous caller the document allows.
    marker = uuid.uuid4().hex[:10]
    email = f"flow-{marker}@example.com"
    hold = expect(
        "hold",
        bookings_hold.sync_detailed(
            client=public,  # type: ignore[arg-type]
            x_tenant_id=tenant,
            idempotency_key=str(uuid.uuid4()),
            body=HoldRequest(
                site_id=uuid.UUID(product.site_id),
                product_id=uuid.UUID(product.id),
                slot_id=uuid.UUID(slot.slot_id),
                party_size=PARTY_SIZE,
                customer=CustomerInput(name="Ada Lovelace", email=email),
            ),
        ),
        BookingResponse,
    )
    check("hold", hold.status == BookingStatus.HOLD, f"status {hold.status.value}, not hold")
    booking_token = hold.booking_token
    if not isinstance(booking_token, str) or not booking_token:
        raise FlowError("hold: no bookingToken")
    # The booking's own calls: its token in x-booking-token (the bookingToken scheme).
    holder = AuthenticatedClient(
        base_url=base_url,
        token=booking_token,
        auth_header_name="x-booking-token",
        prefix="",
        raise_on_unexpected_status=True,
        timeout=TIMEOUT,
    )

    # A code of its own, so that a second run against the same tenant needs no cleanup.
    code = f"FLOW{marker.upper()}"
    promotion = expect(
        "create promotion",
        promotions_create_promotion.sync_detailed(
            client=staff,
            x_tenant_id=tenant,
            body=PromotionCreate(
                code=code,
                name="Client flow 10 %",
                type_=PromotionType.PERCENTAGE,
                discount_value=10.0,
                starts_at=datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=1),
                is_stackable=True,
            ),
        ),
        PromotionResponse,
    )
    check("create promotion", promotion.promotion.code == code, f"code {promotion.promotion.code}")

    applied = expect(
        "apply promotion",
        promotions_apply_promotion.sync_detailed(
            client=holder,
            x_tenant_id=tenant,
            body=ApplyPromotionRequest(
                booking_id=uuid.UUID(hold.id),
                promotion_code=code.lower(),
                expected_pricing_hash=hold.pricing_hash,
            ),
        ),
        ApplyPromotionResponse,
    )
    priced = applied.booking
    check("apply promotion", priced.promotion_discount > 0, "no discount")
    check(
        "apply promotion",
        priced.total < priced.subtotal,
        f"total {priced.total} not below {priced.subtotal}",
    )

    confirmed = expect(
        "confirm",
        bookings_confirm.sync_detailed(
            id=uuid.UUID(hold.id),
            client=holder,
            x_tenant_id=tenant,
            idempotency_key=str(uuid.uuid4()),
            body=ConfirmRequest(pricing_hash=priced.pricing_hash, payment_method=PaymentMethod.POA),
        ),
        BookingResponse,
    )
    check(
        "confirm", confirmed.status == BookingStatus.TENTATIVE, f"status {confirmed.status.value}"
    )
    check("confirm", confirmed.price.promotion_discount > 0, "the discount was lost")

    found = expect(
        "staff search",
        admin_bookings_search.sync_detailed(client=staff, x_tenant_id=tenant, customer_email=email),
        SearchResponse,
    )
    matches = [b for b in found.bookings if b.booking_id == hold.id]
    check(
        "staff search",
        len(found.bookings) == 1 and len(matches) == 1,
        f"{len(found.bookings)} bookings found",
    )
    match = matches[0]
    check("staff search", match.status == BookingStatus.TENTATIVE, f"status {match.status.value}")
    check("staff search", match.customer.email == email, f"customer {match.customer.email}")

    return (
        f"client flow: signed in as {username}@{tenant}, {len(products.items)} products, "
        f"{len(availability.slots)} slots; held {confirmed.reference} ({PARTY_SIZE} at "
        f"{slot.starts_at.isoformat()}), {code} took {priced.promotion_discount:.2f} off "
        f"{priced.subtotal:.2f} {priced.currency}, confirmed {confirmed.status.value} (poa), "
        f"staff search by customerEmail found {match.booking_reference} {match.status.value}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("base_url", help="the running server, e.g. http://127.0.0.1:8080")
    parser.add_argument("--tenant", default="demo")
    parser.add_argument("--username", default="admin")
    parser.add_argument("--password", default="kairos-demo-admin")
    args = parser.parse_args()
    try:
        print(run(args.base_url.rstrip("/"), args.tenant, args.username, args.password))
    except Exception as error:  # noqa: BLE001 - any failure fails the flow, with its reason
        print(f"client flow FAILED: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
