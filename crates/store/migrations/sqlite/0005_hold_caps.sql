-- Concurrent holds are capped per customer (account or email) and per client address in
-- each tenant: holds remember the address they came from, and the live holds of one
-- customer or address are counted through partial indexes.
ALTER TABLE bookings ADD COLUMN client_address TEXT;
CREATE INDEX bookings_holds_by_email ON bookings (tenant_id, customer_email) WHERE status = 'hold';
CREATE INDEX bookings_holds_by_customer ON bookings (tenant_id, customer_id) WHERE status = 'hold';
CREATE INDEX bookings_holds_by_address ON bookings (tenant_id, client_address) WHERE status = 'hold';
