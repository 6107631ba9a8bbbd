-- SQLite twin of migrations/postgres (see 0001 for the type mapping).
-- Vouchers and their ledger. A voucher's balance is its original value plus the sum of
-- its later transactions (redeem negative, reverse positive), and never negative.
-- Amounts in minor units of the tenant's currency.

CREATE TABLE vouchers (
    tenant_id         TEXT NOT NULL REFERENCES tenants (id),
    id                BLOB NOT NULL,
    code              TEXT NOT NULL,
    -- lower(code): codes are unique per tenant whatever their case
    code_key          TEXT NOT NULL,
    voucher_type      TEXT NOT NULL CHECK (voucher_type IN ('single_use', 'multi_use', 'gift_card', 'loyalty_credit')),
    original_value    INTEGER NOT NULL CHECK (original_value > 0),
    current_balance   INTEGER NOT NULL CHECK (current_balance >= 0),
    usage_limit       INTEGER CHECK (usage_limit IS NULL OR usage_limit > 0),
    usage_count       INTEGER NOT NULL DEFAULT 0 CHECK (usage_count >= 0),
    expires_at        TEXT,
    customer_email    TEXT,
    customer_id       BLOB,
    is_active         INTEGER NOT NULL DEFAULT 1,
    issued_by         TEXT,
    issued_at         TEXT NOT NULL,
    updated_at        TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    CHECK (current_balance <= original_value),
    CHECK (usage_limit IS NULL OR usage_count <= usage_limit)
);
CREATE UNIQUE INDEX vouchers_code ON vouchers (tenant_id, code_key);
CREATE INDEX vouchers_email ON vouchers (tenant_id, customer_email);

CREATE TABLE voucher_transactions (
    tenant_id      TEXT NOT NULL,
    id             BLOB NOT NULL,
    voucher_id     BLOB NOT NULL,
    booking_id     BLOB,
    kind           TEXT NOT NULL CHECK (kind IN ('issue', 'redeem', 'reverse')),
    amount         INTEGER NOT NULL,
    balance_after  INTEGER NOT NULL CHECK (balance_after >= 0),
    created_at     TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, voucher_id) REFERENCES vouchers (tenant_id, id)
);
CREATE INDEX voucher_transactions_voucher ON voucher_transactions (tenant_id, voucher_id, created_at);
