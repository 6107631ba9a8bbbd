-- One payment for a booking group (spec Part B 4.3, 6): the group's online payment is a
-- payment row with group_id and no booking; once collected, each booking's share is a
-- payment row of the booking with parent_payment_id naming the group's (its refunds go
-- through the group's provider payment). How a group was confirmed, and a total staff
-- set instead of the sum of its bookings' prices, with why.
ALTER TABLE payments ADD COLUMN group_id UUID;
ALTER TABLE payments ADD COLUMN parent_payment_id UUID;
CREATE INDEX payments_group ON payments (tenant_id, group_id) WHERE group_id IS NOT NULL;
CREATE INDEX payments_parent ON payments (tenant_id, parent_payment_id) WHERE parent_payment_id IS NOT NULL;

ALTER TABLE booking_groups ADD COLUMN payment_method TEXT;
ALTER TABLE booking_groups ADD COLUMN confirmed_at TIMESTAMPTZ;
ALTER TABLE booking_groups ADD COLUMN custom_total BIGINT CHECK (custom_total >= 0);
ALTER TABLE booking_groups ADD COLUMN custom_pricing_reason TEXT;
