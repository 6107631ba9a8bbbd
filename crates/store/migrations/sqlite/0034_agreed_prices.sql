-- A booking of a group whose price was agreed for the group (a package's price, staff's
-- total) keeps its share of that price here: it replaces the booking's catalog subtotal,
-- tax included, and the group's promotions and vouchers apply on top of it.
ALTER TABLE bookings ADD COLUMN agreed_price BIGINT CHECK (agreed_price >= 0);
-- Package groups held before agreed prices: each held booking's total was already its
-- share of the package's price.
UPDATE bookings SET agreed_price = total
WHERE status = 'hold' AND EXISTS (
    SELECT 1 FROM booking_groups g
    WHERE g.tenant_id = bookings.tenant_id AND g.id = bookings.group_id
      AND g.package_id IS NOT NULL);
