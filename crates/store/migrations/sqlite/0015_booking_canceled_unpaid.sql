-- SQLite twin of migrations/postgres (see 0001 for the type mapping).
-- Bookings cancelled because their online payment did not arrive by the payment deadline:
-- if the money arrives after all, such a booking takes its seats again when they are free
-- (any other cancelled booking has its late money refunded).
ALTER TABLE bookings ADD COLUMN canceled_unpaid INTEGER NOT NULL DEFAULT 0;
