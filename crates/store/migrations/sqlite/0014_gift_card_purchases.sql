-- SQLite twin of migrations/postgres (see 0001 for the type mapping).
-- Gift card purchases (spec Part A 2.8, 3.2, 4.10, 6): bought online, paid through the
-- card provider, delivered as a gift_card voucher by email. Amounts are minor units.
CREATE TABLE gift_card_purchases (
    tenant_id            TEXT NOT NULL REFERENCES tenants (id),
    id                   BLOB NOT NULL,
    product_id           BLOB NOT NULL,
    -- the product's site at purchase (NULL: every site); its cardpay account comes first
    site_id              BLOB,
    amount               INTEGER NOT NULL CHECK (amount > 0),
    currency             TEXT NOT NULL,
    -- the product's validity when bought: the voucher expires this many days after payment
    validity_days        INTEGER NOT NULL CHECK (validity_days > 0),
    status               TEXT NOT NULL CHECK (status IN ('pending', 'payment_failed', 'paid',
                             'delivered', 'cancelled')),
    purchaser_email      TEXT NOT NULL,
    purchaser_name       TEXT,
    purchaser_phone      TEXT,
    recipient_email      TEXT NOT NULL,
    recipient_name       TEXT,
    personal_message     TEXT,
    -- when the delivery email goes out (NULL: as soon as it is paid)
    delivery_date        TEXT,
    voucher_id           BLOB,
    -- the latest delivery email; its delivery makes the purchase delivered
    delivery_message_id  BLOB,
    paid_at              TEXT,
    delivered_at         TEXT,
    created_at           TEXT NOT NULL,
    updated_at           TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, product_id) REFERENCES gift_card_products (tenant_id, id),
    FOREIGN KEY (tenant_id, voucher_id) REFERENCES vouchers (tenant_id, id),
    CHECK (status IN ('pending', 'payment_failed', 'cancelled') OR voucher_id IS NOT NULL)
);
CREATE INDEX gift_card_purchases_list ON gift_card_purchases (tenant_id, created_at);
CREATE INDEX gift_card_purchases_message ON gift_card_purchases (tenant_id, delivery_message_id);

-- A gift card purchase's payment (its booking_id is NULL).
ALTER TABLE payments ADD COLUMN gift_card_purchase_id BLOB;
CREATE INDEX payments_gift_card_purchase ON payments (tenant_id, gift_card_purchase_id);
