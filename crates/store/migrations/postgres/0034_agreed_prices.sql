-- A booking of a group whose price was agreed for the group (a package's price, staff's
-- total) keeps its share of that price here: it replaces the booking's catalog subtotal,
-- tax included, and the group's promotions and vouchers apply on top of it.
ALTER TABLE bookings ADD COLUMN agreed_price BIGINT CHECK (agreed_price >= 0);
-- Package groups held before agreed prices: each held booking's total was already its
-- share of the package's price (a group's bookings took no codes or vouchers then; any
-- that did keep their catalog price, as before).
UPDATE bookings SET agreed_price = total
WHERE status = 'hold' AND EXISTS (
    SELECT 1 FROM booking_groups g
    WHERE g.tenant_id = bookings.tenant_id AND g.id = bookings.group_id
      AND g.package_id IS NOT NULL)
  AND NOT EXISTS (
    SELECT 1 FROM promotion_usages u
    WHERE u.tenant_id = bookings.tenant_id AND u.booking_id = bookings.id
      AND u.status <> 'released')
  AND NOT EXISTS (
    SELECT 1 FROM voucher_transactions t
    WHERE t.tenant_id = bookings.tenant_id AND t.booking_id = bookings.id);
